// The connector manifest of the built-in `chatgpt` importer (ChatGPT data export).
import type { Manifest } from "../core/manifest.js";

export const CHATGPT_MANIFEST: Manifest = {
  connector_key: "chatgpt",
  display_name: "ChatGPT",
  version: "2",
  description: "Conversations from a ChatGPT data export (conversations.json or the export zip).",
  streams: [
    {
      name: "conversations",
      display_name: "Conversations",
      primary_key: ["conversation_id"],
      cursor_field: "updated_at",
      time_field: "created_at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          conversation_id: { type: "string" },
          title: { type: "string" },
          created_at: { type: "string", format: "date-time" },
          updated_at: { type: "string", format: "date-time" },
          model: { type: "string", description: "The model of the conversation (default or last used)." },
          message_count: { type: "integer", description: "Messages on the active branch." },
        },
        required: ["conversation_id"],
      },
      text_fields: [],
      query: {
        search: ["title"],
        exact_filters: ["model"],
        range_filters: {
          created_at: ["gte", "gt", "lte", "lt"],
          updated_at: ["gte", "gt", "lte", "lt"],
          message_count: ["gte", "lte"],
        },
        aggregations: {
          group_by: ["model"],
          group_by_time: ["created_at"],
          sum: ["message_count"],
          min: ["created_at"],
          max: ["updated_at"],
          count_distinct: ["model"],
        },
      },
    },
    {
      name: "messages",
      display_name: "Messages",
      // Node ids are only unique within one conversation (exports reuse ids like "u1" across them),
      // so the conversation is part of the key: record ids read `<conversation_id>~<message_id>`.
      primary_key: ["conversation_id", "message_id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      title_field: "conversation_title",
      schema: {
        type: "object",
        properties: {
          message_id: { type: "string" },
          conversation_id: { type: "string" },
          conversation_title: { type: "string" },
          role: { type: "string", description: "user, assistant or tool." },
          text: { type: "string", contentMediaType: "text/markdown" },
          model: { type: "string", description: "metadata.model_slug of assistant messages." },
          sent_at: { type: "string", format: "date-time" },
        },
        required: ["message_id", "conversation_id"],
      },
      text_fields: ["text"],
      query: {
        search: ["text", "conversation_title"],
        exact_filters: ["conversation_id", "role", "model"],
        range_filters: { sent_at: ["gte", "gt", "lte", "lt"] },
        aggregations: {
          group_by: ["role", "model", "conversation_id"],
          group_by_time: ["sent_at"],
          min: ["sent_at"],
          max: ["sent_at"],
          count_distinct: ["conversation_id"],
        },
      },
    },
  ],
};
