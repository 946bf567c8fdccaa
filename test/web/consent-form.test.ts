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
    counts: { cin_1: 4 },
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
    counts: {},
  },
  {
    key: "mail/contacts",
    connectorKey: "mail",
    stream: "contacts",
    label: "mail:contacts",
    description: null,
    fields: ["email"],
    timeField: null,
    connections: [conn("cin_2", "mail"), conn("cin_3", "mail")],
    counts: {},
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
    assert.deepEqual([...prefilledStreams(CATALOG, "openid email profile")].length, 3);
    assert.deepEqual(
      [...prefilledStreams(CATALOG, "contacts mail:messages")],
      ["mail/messages", "mail/contacts"],
    );
    assert.deepEqual([...prefilledStreams(CATALOG, "messages")], ["chat/messages", "mail/messages"]);
  });

  it("everything ticked is stored as the explicit lists shown, 'all' only when later additions are chosen", () => {
    const base: [string, string][] = [
      ["stream", "mail/messages"],
      ["conn:mail/messages", "cin_2"],
      ["conn:mail/messages", "cin_3"],
      ["field:mail/messages", "id"],
      ["field:mail/messages", "subject"],
      ["field:mail/messages", "body"],
    ];
    const shown = grantFromForm(CATALOG, new URLSearchParams(base), opts);
    assert.ok(shown.ok);
    assert.deepEqual(shown.grant.streams[0], {
      stream: "messages",
      connector_key: "mail",
      connections: ["cin_2", "cin_3"],
      fields: ["id", "subject", "body"],
      time_range: null,
    });
    const future = grantFromForm(CATALOG, new URLSearchParams([...base, ["future", "yes"]]), opts);
    assert.ok(future.ok);
    assert.equal(future.grant.streams[0].connections, "all");
    assert.equal(future.grant.streams[0].fields, "all");
    // Later additions never widen what the owner narrowed.
    const narrowed = grantFromForm(
      CATALOG,
      new URLSearchParams([...base.filter(([, v]) => v !== "cin_3" && v !== "body"), ["future", "yes"]]),
      opts,
    );
    assert.ok(narrowed.ok);
    assert.deepEqual(narrowed.grant.streams[0].connections, ["cin_2"]);
    assert.deepEqual(narrowed.grant.streams[0].fields, ["id", "subject"]);
  });

  it("unknown values are dropped; dates and expiry validated", () => {
    const form = new URLSearchParams([
      ["stream", "mail/contacts"],
      ["stream", "nope/nope"],
      ["conn:mail/contacts", "cin_2"],
      ["conn:mail/contacts", "cin_3"],
      ["conn:mail/contacts", "cin_999"],
      ["field:mail/contacts", "email"],
      ["expires", "never"],
      ["future", "yes"],
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
    assert.deepEqual(noConn, { ok: false, error: "Pick at least one connection for mail:contacts." });
    const badExpiry = grantFromForm(
      CATALOG,
      new URLSearchParams([...form].filter(([k]) => k !== "expires").concat([["expires", "999"]])),
      opts,
    );
    assert.deepEqual(badExpiry, { ok: false, error: "Pick an expiry." });
  });
});
