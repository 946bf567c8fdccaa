// The connector manifest of the built-in `mbox` importer (10-data-model.md).
import type { Manifest } from "../core/manifest.js";

export const MBOX_MANIFEST: Manifest = {
  connector_key: "mbox",
  display_name: "Mail (mbox)",
  version: "1",
  description: "Mail messages imported from an mbox file (e.g. a Google Takeout mail export).",
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
          message_id: {
            type: "string",
            description: "Message-ID header, or sha256:<hex> of the raw message.",
          },
          thread_id: { type: "string", description: "X-GM-THRID, else the root of References/In-Reply-To." },
          subject: { type: "string" },
          from: { type: "string", description: "Sender as 'Name <address>' (or the bare address)." },
          to: { type: "array", items: { type: "string" } },
          cc: { type: "array", items: { type: "string" } },
          sent_at: { type: "string", format: "date-time" },
          labels: { type: "array", items: { type: "string" }, description: "Gmail labels (X-Gmail-Labels)." },
          body: {
            type: "string",
            contentMediaType: "text/plain",
            description: "Readable text of the message.",
          },
          size_bytes: { type: "integer", description: "Size of the raw message in bytes." },
          attachments: {
            type: "array",
            description: "Attachment metadata only; the bytes are not imported.",
            items: {
              type: "object",
              properties: {
                filename: { type: "string" },
                content_type: { type: "string" },
                size_bytes: { type: "integer" },
                digest: { type: "string" },
              },
            },
          },
        },
        required: ["message_id"],
      },
      text_fields: ["body"],
      binary_fields: [],
      query: {
        search: ["subject", "from", "body"],
        exact_filters: ["from", "thread_id", "labels"],
        range_filters: { sent_at: ["gte", "gt", "lte", "lt"], size_bytes: ["gte", "lte"] },
        aggregations: {
          group_by: ["from", "labels"],
          group_by_time: ["sent_at"],
          sum: ["size_bytes"],
          min: ["sent_at"],
          max: ["sent_at"],
          count_distinct: ["from", "thread_id"],
        },
      },
    },
  ],
};
