// The connector manifest of the built-in `claude` importer (claude.ai data export).
import type { Manifest } from "../core/manifest.js";

const TIME_OPS = ["gte", "gt", "lte", "lt"] as const;

export const CLAUDE_MANIFEST: Manifest = {
  connector_key: "claude",
  display_name: "Claude",
  version: "2",
  description:
    "Conversations from a claude.ai data export (the zip or its conversations.json), with every edit branch; attachments and files as metadata; projects with their instructions and knowledge docs.",
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
          title: {
            type: "string",
            description: "The conversation's name; for an unnamed one, its first human message (shortened).",
          },
          summary: { type: "string" },
          created_at: { type: "string", format: "date-time" },
          updated_at: { type: "string", format: "date-time" },
          message_count: { type: "integer", description: "Messages on every branch." },
          attachment_count: { type: "integer" },
          project_id: { type: "string", description: "The project the conversation belongs to, if any." },
        },
        required: ["conversation_id"],
      },
      text_fields: ["summary"],
      query: {
        search: ["title", "summary"],
        exact_filters: ["conversation_id", "project_id"],
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
          index: {
            type: "integer",
            description: "0-based position in the export's list of the conversation.",
          },
          parent_message_uuid: {
            type: "string",
            description: "The message this one answers or follows; an edited or retried message shares it.",
          },
          on_current_branch: {
            type: "boolean",
            description: "On the branch the conversation shows (false: an abandoned edit or retry).",
          },
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
        exact_filters: [
          "conversation_id",
          "sender",
          "tool_names",
          "on_current_branch",
          "parent_message_uuid",
        ],
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
    {
      name: "projects",
      display_name: "Projects",
      primary_key: ["project_id"],
      cursor_field: "updated_at",
      time_field: "created_at",
      title_field: "name",
      schema: {
        type: "object",
        properties: {
          project_id: { type: "string", description: "The project's uuid." },
          name: { type: "string" },
          description: { type: "string" },
          prompt_template: {
            type: "string",
            contentMediaType: "text/markdown",
            description: "The project's instructions to Claude.",
          },
          is_private: { type: "boolean" },
          is_starter_project: { type: "boolean", description: "The example project claude.ai creates." },
          creator: { type: "string", description: "The creator's full name." },
          created_at: { type: "string", format: "date-time" },
          updated_at: { type: "string", format: "date-time" },
          doc_count: { type: "integer", description: "Knowledge documents (stream project_docs)." },
        },
        required: ["project_id"],
      },
      text_fields: ["prompt_template"],
      query: {
        search: ["name", "description", "prompt_template"],
        exact_filters: ["project_id", "is_starter_project"],
        range_filters: { created_at: [...TIME_OPS], updated_at: [...TIME_OPS] },
        aggregations: { group_by_time: ["created_at"], sum: ["doc_count"] },
      },
    },
    {
      name: "project_docs",
      display_name: "Project knowledge documents",
      primary_key: ["project_id", "doc_id"],
      cursor_field: "created_at",
      time_field: "created_at",
      title_field: "filename",
      schema: {
        type: "object",
        properties: {
          project_id: { type: "string" },
          doc_id: { type: "string", description: "The document's uuid." },
          project_name: { type: "string" },
          filename: { type: "string" },
          content: { type: "string", description: "The document's text as uploaded to the project." },
          created_at: { type: "string", format: "date-time" },
        },
        required: ["project_id", "doc_id"],
      },
      text_fields: ["content"],
      query: {
        search: ["filename", "content", "project_name"],
        exact_filters: ["project_id", "filename"],
        range_filters: { created_at: [...TIME_OPS] },
        aggregations: { group_by: ["project_id"], group_by_time: ["created_at"] },
      },
    },
  ],
};
