// The connector manifest of the built-in `takeout` importer (Google Takeout: My Activity, Chrome history).
import type { Manifest } from "../core/manifest.js";

export const TAKEOUT_MANIFEST: Manifest = {
  connector_key: "google-takeout",
  display_name: "Google Takeout",
  version: "2",
  description:
    "My Activity (every product exported as JSON, YouTube watch and search history included) and Chrome browser history from a Google Takeout in any language.",
  streams: [
    {
      name: "activity",
      display_name: "My Activity",
      primary_key: ["activity_id"],
      cursor_field: "time",
      time_field: "time",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          activity_id: { type: "string", description: "Digest of product, header, title, URL and time." },
          product: {
            type: "string",
            description:
              "Search, YouTube, Maps, …: the My Activity folder, else the item's first product (as the account's language writes it).",
          },
          header: { type: "string" },
          title: { type: "string" },
          title_url: { type: "string" },
          domain: { type: "string", description: "Host of title_url, in Unicode (straße.example)." },
          action: {
            type: "string",
            description:
              "watched (a YouTube video) or searched (YouTube or Google), from title_url; null otherwise.",
          },
          time: { type: "string", format: "date-time" },
          products: { type: "array", items: { type: "string" } },
          subtitles: { type: "array", items: { type: "object" }, description: "{name, url} items." },
          details: { type: "array", items: { type: "object" } },
          location_infos: { type: "array", items: { type: "object" } },
          activity_controls: { type: "array", items: { type: "string" } },
          description: { type: "string" },
        },
        required: ["activity_id", "time"],
      },
      text_fields: ["description"],
      query: {
        search: ["title", "header", "description"],
        exact_filters: ["product", "header", "action", "domain"],
        range_filters: { time: ["gte", "gt", "lte", "lt"] },
        aggregations: {
          group_by: ["product", "header", "action", "domain"],
          group_by_time: ["time"],
          min: ["time"],
          max: ["time"],
          count_distinct: ["product", "title_url"],
        },
      },
    },
    {
      name: "browser_history",
      display_name: "Chrome history",
      primary_key: ["visit_id"],
      cursor_field: "visited_at",
      time_field: "visited_at",
      title_field: "title",
      schema: {
        type: "object",
        properties: {
          visit_id: { type: "string", description: "Digest of URL, time_usec and client_id." },
          title: { type: "string" },
          url: { type: "string" },
          domain: { type: "string", description: "Host of the URL, in Unicode (straße.example)." },
          visited_at: { type: "string", format: "date-time" },
          page_transition: { type: "string", description: "LINK, TYPED, RELOAD, … as Chrome recorded it." },
          client_id: { type: "string", description: "The Chrome install that synced the visit." },
          favicon_url: { type: "string" },
        },
        required: ["visit_id", "url", "visited_at"],
      },
      text_fields: [],
      query: {
        search: ["title", "url"],
        exact_filters: ["domain", "page_transition", "client_id"],
        range_filters: { visited_at: ["gte", "gt", "lte", "lt"] },
        aggregations: {
          group_by: ["domain", "page_transition", "client_id"],
          group_by_time: ["visited_at"],
          min: ["visited_at"],
          max: ["visited_at"],
          count_distinct: ["domain", "url"],
        },
      },
    },
  ],
};
