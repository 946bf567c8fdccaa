// The consent form's pure logic: prefill from the requested scope, and form → grant validation.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CatalogStream } from "../../src/web/catalog.js";
import { grantFromForm, prefilledStreams } from "../../src/web/consent-form.js";

const conn = (id: string, key: string) => ({
  connection_id: id,
  connector_key: key,
  display_name: id,
  created_at: "",
});
const CATALOG: CatalogStream[] = [
  {
    key: "chat/messages",
    connectorKey: "chat",
    stream: "messages",
    label: "chat:messages",
    description: null,
    fields: ["id", "text"],
    timeField: null,
    connections: [conn("cin_1", "chat")],
  },
  {
    key: "mail/messages",
    connectorKey: "mail",
    stream: "messages",
    label: "mail:messages",
    description: null,
    fields: ["id", "subject", "body"],
    timeField: null,
    connections: [conn("cin_2", "mail"), conn("cin_3", "mail")],
  },
  {
    key: "mail/contacts",
    connectorKey: "mail",
    stream: "contacts",
    label: "contacts",
    description: null,
    fields: ["email"],
    timeField: null,
    connections: [conn("cin_2", "mail"), conn("cin_3", "mail")],
  },
];
const opts = { clientName: "C", redirectHost: "h", now: new Date("2026-01-01T00:00:00Z") };

describe("consent form", () => {
  it("prefills everything unless the scope names streams it knows", () => {
    assert.deepEqual(
      [...prefilledStreams(CATALOG, null)],
      ["chat/messages", "mail/messages", "mail/contacts"],
    );
    assert.deepEqual(
      [...prefilledStreams(CATALOG, "mcp:read unknown")],
      ["chat/messages", "mail/messages", "mail/contacts"],
    );
    assert.deepEqual(
      [...prefilledStreams(CATALOG, "contacts mail:messages")],
      ["mail/messages", "mail/contacts"],
    );
    assert.deepEqual([...prefilledStreams(CATALOG, "messages")], ["chat/messages", "mail/messages"]);
  });

  it("everything ticked is 'all'; unknown values are dropped; dates and expiry validated", () => {
    const form = new URLSearchParams([
      ["stream", "mail/contacts"],
      ["stream", "nope/nope"],
      ["conn:mail/contacts", "cin_2"],
      ["conn:mail/contacts", "cin_3"],
      ["conn:mail/contacts", "cin_999"],
      ["field:mail/contacts", "email"],
      ["expires", "never"],
    ]);
    const choice = grantFromForm(CATALOG, form, opts);
    assert.deepEqual(choice, {
      ok: true,
      grant: {
        client_name: "C",
        purpose: "approved on the consent page for h",
        expires_at: null,
        streams: [
          { stream: "contacts", connector_key: "mail", connections: "all", fields: "all", time_range: null },
        ],
      },
    });
    const bad = (extra: [string, string][]) => {
      const r = grantFromForm(CATALOG, new URLSearchParams([...form, ...extra]), opts);
      return r.ok ? "ok" : r.error;
    };
    assert.equal(bad([["since", "2024-13-45"]]), "Since must be a date (YYYY-MM-DD).");
    assert.equal(
      bad([
        ["since", "2024-05-01"],
        ["until", "2024-01-01"],
      ]),
      "Since must be before until.",
    );
    const noConn = grantFromForm(
      CATALOG,
      new URLSearchParams([
        ["stream", "mail/contacts"],
        ["field:mail/contacts", "email"],
      ]),
      opts,
    );
    assert.deepEqual(noConn, { ok: false, error: "Pick at least one connection for contacts." });
    const badExpiry = grantFromForm(
      CATALOG,
      new URLSearchParams([...form].filter(([k]) => k !== "expires").concat([["expires", "999"]])),
      opts,
    );
    assert.deepEqual(badExpiry, { ok: false, error: "Pick an expiry." });
  });
});
