// Manifests shared by the RS and core tests: a mail connector and a chat connector that both
// have a `messages` stream (fan-in), plus a stream with no time field.
import type { Manifest } from "../../src/core/manifest.js";

export const MAIL_MANIFEST: Manifest = {
  connector_key: "mail",
  display_name: "Mail",
  version: "1",
  streams: [
    {
      name: "messages",
      display_name: "Messages",
      primary_key: ["message_id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      title_field: "subject",
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          thread_id: { type: "string" },
          subject: { type: "string", description: "The subject line." },
          from: { type: "string" },
          labels: { type: "array", items: { type: "string" } },
          sent_at: { type: "string", format: "date-time" },
          body: { type: "string", contentMediaType: "text/plain" },
          size_bytes: { type: "integer" },
          starred: { type: "boolean" },
          secret_note: { type: "string" },
          sender: { type: "object", properties: { email: { type: "string" }, name: { type: "string" } } },
        },
      },
      text_fields: ["body", "secret_note"],
      query: {
        search: ["subject", "from", "body", "secret_note"],
        exact_filters: ["from", "thread_id", "labels", "starred", "secret_note", "sender.email"],
        range_filters: { sent_at: ["gte", "gt", "lte", "lt"], size_bytes: ["gte", "lte"] },
        aggregations: {
          group_by: ["from", "labels", "secret_note"],
          group_by_time: ["sent_at"],
          sum: ["size_bytes"],
          min: ["sent_at", "size_bytes"],
          max: ["sent_at", "size_bytes"],
          count_distinct: ["from", "thread_id"],
        },
      },
    },
    {
      name: "contacts",
      primary_key: ["email"],
      schema: { type: "object", properties: { email: { type: "string" }, name: { type: "string" } } },
      query: { search: ["name"], exact_filters: ["email"] },
    },
  ],
};

export const CHAT_MANIFEST: Manifest = {
  connector_key: "chat",
  display_name: "Chat",
  version: "1",
  streams: [
    {
      name: "messages",
      primary_key: ["id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      schema: {
        type: "object",
        properties: {
          id: { type: "string" },
          conversation_id: { type: "string" },
          role: { type: "string" },
          text: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
        },
      },
      text_fields: ["text"],
      query: {
        search: ["text"],
        exact_filters: ["role", "conversation_id"],
        range_filters: { sent_at: ["gte", "gt", "lte", "lt"] },
        aggregations: { group_by: ["role"], group_by_time: ["sent_at"], count_distinct: ["conversation_id"] },
      },
    },
  ],
};
