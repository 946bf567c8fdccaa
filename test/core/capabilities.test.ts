// Unit tests for per-field capability flags and the granted-field rule.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  fieldCapabilities,
  fieldNotGranted,
  grantedSchema,
  isFieldGranted,
  sortableFields,
} from "../../src/core/capabilities.js";
import { MAIL_MANIFEST } from "../rs/fixture-manifests.js";

const mail = MAIL_MANIFEST.streams[0];

describe("core/capabilities", () => {
  it("derives flags from the manifest", () => {
    const caps = fieldCapabilities(mail, "all", { full: true });
    assert.deepEqual(caps.sent_at, {
      type: "string:date-time",
      granted: true,
      exact_filter: false,
      range_filter: ["gte", "gt", "lte", "lt"],
      search: false,
      aggregations: ["group_by_time", "min", "max"],
      text_like: false,
    });
    assert.deepEqual(caps.body, {
      type: "string",
      granted: true,
      exact_filter: false,
      range_filter: [],
      search: true,
      aggregations: [],
      text_like: true,
      mime_type: "text/plain",
    });
    assert.equal(caps.subject.description, "The subject line.");
    assert.equal(caps["sender.email"].exact_filter, true);
  });

  it("marks non-granted fields unusable; primary keys are always granted", () => {
    const caps = fieldCapabilities(mail, ["subject", "sender"]);
    assert.deepEqual(caps.from, {
      type: "string",
      granted: false,
      exact_filter: false,
      range_filter: [],
      search: false,
      aggregations: [],
      text_like: false,
    });
    assert.equal(caps.message_id.granted, true);
    assert.equal(caps["sender.email"].granted, true);
    assert.equal(caps.subject.description, undefined);
    assert.equal(isFieldGranted(mail, ["sender.email"], "sender"), false);
    assert.deepEqual(Object.keys((grantedSchema(mail, ["subject"]) as { properties: object }).properties), [
      "message_id",
      "subject",
    ]);
    assert.deepEqual(sortableFields(mail), ["sent_at", "size_bytes"]);
  });

  it("grants primary-key paths and paths under granted objects, and refuses without naming the field", () => {
    assert.equal(isFieldGranted(mail, ["subject"], "message_id"), true);
    assert.equal(isFieldGranted(mail, ["sender"], "sender.email"), true);
    assert.equal(isFieldGranted(mail, ["sender"], "senders"), false);
    assert.equal(isFieldGranted(mail, "all", "anything.at.all"), true);
    const err = fieldNotGranted("sort");
    assert.equal(err.code, "field_not_granted");
    assert.equal(err.status, 403);
    assert.equal(err.param, "sort");
    assert.equal(
      err.message,
      "the grant does not include a field named in sort; see schema(stream) for granted fields.",
    );
  });
});
