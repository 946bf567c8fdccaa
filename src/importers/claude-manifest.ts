// The connector manifest of the built-in `claude` importer (claude.ai data export).
import type { Manifest } from "../core/manifest.js";

const TIME_OPS = ["gte", "gt", "lte", "lt"] as const;

export const CLAUDE_MANIFEST: Manifest = {
  connector_key: "claude",
  display_name: "Claude",
  version: "1",
  description:
    "Conversations from a claude.ai data export (the zip or its conversations.json); attachments and files as metadata.",
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
          conversation_id: { type: "string", description: "The conversation's uuid." },
          title: { type: "string", description: "The conversation's name (empty when unnamed)." },
          summary: { type: "string" },
          created_at: { type: "string", format: "date-time" },
          updated_at: { type: "string", format: "date-time" },
          message_count: { type: "integer" },
          attachment_count: { type: "integer" },
        },
        required: ["conversation_id"],
      },
      text_fields: ["summary"],
      query: {
        search: ["title", "summary"],
        exact_filters: ["conversation_id"],
        range_filters: {
          created_at: [...TIME_OPS],
          updated_at: [...TIME_OPS],
          message_count: ["gte", "lte"],
        },
        aggregations: {
          group_by_time: ["created_at", "updated_at"],
          sum: ["message_count", "attachment_count"],
          min: ["created_at"],
          max: ["updated_at"],
        },
      },
    },
    {
      name: "messages",
      display_name: "Messages",
      primary_key: ["conversation_id", "message_id"],
      cursor_field: "sent_at",
      time_field: "sent_at",
      title_field: "conversation_title",
      schema: {
        type: "object",
        properties: {
          conversation_id: { type: "string" },
          message_id: { type: "string", description: "The message's uuid (unique within its conversation)." },
          conversation_title: { type: "string" },
          index: { type: "integer", description: "0-based position in the conversation." },
          sender: { type: "string", description: "human or assistant." },
          text: { type: "string", contentMediaType: "text/markdown", description: "The visible text." },
          thinking: { type: "string", description: "Extended-thinking blocks, when the export has them." },
          tool_text: {
            type: "string",
            description: "Tool calls (name and input) and tool results, one block each, in order.",
          },
          tool_names: { type: "array", items: { type: "string" }, description: "Tools used or answered." },
          attachments: {
            type: "array",
            description:
              "Pasted or uploaded attachments (metadata; their extracted text is attachment_text).",
            items: {
              type: "object",
              properties: {
                file_name: { type: "string" },
                file_type: { type: "string" },
                file_size: { type: "integer" },
              },
            },
          },
          attachment_text: { type: "string", description: "The text claude.ai extracted from attachments." },
          files: {
            type: "array",
            description: "Uploaded files (names only; their bytes are not in the export).",
            items: { type: "object", properties: { file_name: { type: "string" } } },
          },
          sent_at: { type: "string", format: "date-time" },
        },
        required: ["conversation_id", "message_id"],
      },
      text_fields: ["text", "thinking", "tool_text", "attachment_text"],
      query: {
        search: ["text", "conversation_title", "thinking", "tool_text", "attachment_text"],
        exact_filters: ["conversation_id", "sender", "tool_names"],
        range_filters: { sent_at: [...TIME_OPS], index: ["gte", "lte"] },
        aggregations: {
          group_by: ["sender", "tool_names", "conversation_id"],
          group_by_time: ["sent_at"],
          min: ["sent_at"],
          max: ["sent_at"],
          count_distinct: ["conversation_id"],
        },
      },
    },
  ],
};
