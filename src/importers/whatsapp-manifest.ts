// The connector manifest of the built-in `whatsapp` importer (WhatsApp "export chat" files).
import type { Manifest } from "../core/manifest.js";

export const WHATSAPP_MANIFEST: Manifest = {
  connector_key: "whatsapp",
  display_name: "WhatsApp",
  version: "2",
  description:
    "Messages from WhatsApp chat exports (the .txt or the zip with media), iOS and Android layouts in any language.",
  streams: [
    {
      name: "messages",
      display_name: "Messages",
      primary_key: ["message_id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      title_field: "chat",
      schema: {
        type: "object",
        properties: {
          message_id: {
            type: "string",
            description: "Digest of chat, local time, sender, text and the ordinal among identical ones.",
          },
          chat: { type: "string", description: "The chat's name (from the export's file name, or --chat)." },
          sender: {
            type: "string",
            description: "Display name or number as exported; null on system lines.",
          },
          text: { type: "string" },
          sent_at: { type: "string", format: "date-time" },
          local_time: {
            type: "string",
            description: "The time as the export wrote it (wall clock, no zone), e.g. 2023-12-31T22:15:00.",
          },
          kind: {
            type: "string",
            description:
              "message, deleted (a deleted message: its sender is kept) or system (encryption notice, X added Y, subject changes, …).",
          },
          edited: {
            type: "boolean",
            description: "The sender edited the message (the export's edit mark is removed from text).",
          },
          attachment: { type: "string", description: "File name of an attached file, when exported." },
          attachment_kind: {
            type: "string",
            description:
              "photo, video, audio, sticker, gif, document, contact, location, or media when the export does not say.",
          },
          media_omitted: { type: "boolean", description: "The export left the media out." },
          attachment_in_export: {
            type: "boolean",
            description: "The attached file is in the imported zip (null when a .txt was imported).",
          },
        },
        required: ["message_id", "chat", "sent_at"],
      },
      text_fields: ["text"],
      query: {
        search: ["text", "sender", "chat"],
        exact_filters: ["chat", "sender", "kind", "edited", "attachment_kind", "media_omitted"],
        range_filters: { sent_at: ["gte", "gt", "lte", "lt"] },
        aggregations: {
          group_by: ["chat", "sender", "kind", "attachment_kind"],
          group_by_time: ["sent_at"],
          min: ["sent_at"],
          max: ["sent_at"],
          count_distinct: ["sender", "chat"],
        },
      },
    },
  ],
};
