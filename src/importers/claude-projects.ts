// The projects of a claude.ai data export: projects.json (an array), or one projects/<uuid>.json per
// project in newer exports, in the export zip or beside an unzipped conversations.json → `projects`
// (name, description, the project's instructions) and `project_docs` (each knowledge document's text).
import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isObject, isoTime, stringOr } from "./content-blocks.js";
import { countChunks, openCountedInput } from "./file-input.js";
import { streamJsonArray } from "./json-array-stream.js";
import type { ImportItem } from "./types.js";
import { listZip, openZipMember } from "./zip-file.js";

interface ProjectFile {
  /** The member or file name, for positions. */
  name: string;
  size: number;
  /** An array of projects (projects.json), or one project (projects/<uuid>.json). */
  array: boolean;
  open(): Promise<AsyncIterable<Buffer>>;
}

const isProjectsArray = (name: string) => basename(name) === "projects.json";
const isProjectFile = (name: string) => /(^|\/)projects\/[^/]+\.json$/.test(name);

/** The export's project files: in the zip, or beside the conversations.json given. */
async function projectFiles(path: string, zip: boolean): Promise<ProjectFile[]> {
  if (zip) {
    return (await listZip(path))
      .filter((m) => isProjectsArray(m.name) || isProjectFile(m.name))
      .map((m) => ({
        name: m.name,
        size: m.uncompressedSize,
        array: isProjectsArray(m.name),
        open: async () => (await openZipMember(path, m.name)) as AsyncIterable<Buffer>,
      }));
  }
  const dir = dirname(path);
  const local = (name: string, array: boolean): ProjectFile | null => {
    const file = join(dir, name);
    try {
      const size = statSync(file).size;
      return { name, size, array, open: async () => openCountedInput(file).chunks };
    } catch {
      return null;
    }
  };
  let perProject: string[] = [];
  try {
    perProject = readdirSync(join(dir, "projects")).filter((n) => n.endsWith(".json"));
  } catch {
    // No projects/ folder: an older export, or just a conversations.json on its own.
  }
  return [
    local("projects.json", true),
    ...perProject.sort().map((n) => local(`projects/${n}`, false)),
  ].filter((f): f is ProjectFile => f !== null);
}

export async function openClaudeProjects(
  path: string,
  options: { zip: boolean },
): Promise<{ items: () => AsyncIterable<ImportItem>; bytesRead(): number; totalBytes: number }> {
  const files = await projectFiles(path, options.zip);
  let done = 0;
  let current: (() => number) | null = null;
  async function* items(): AsyncGenerator<ImportItem> {
    for (const file of files) {
      const counted = countChunks(await file.open());
      current = counted.bytesRead;
      if (file.array) {
        for await (const element of streamJsonArray(counted.chunks)) {
          const position = `${file.name} project ${element.index + 1}`;
          if ("error" in element) yield { error: element.error, position };
          else yield* projectItems(element.value, position);
        }
      } else {
        const parts: Buffer[] = [];
        for await (const chunk of counted.chunks) parts.push(chunk);
        let value: unknown;
        try {
          value = JSON.parse(Buffer.concat(parts).toString("utf8"));
        } catch (error) {
          yield { error: `invalid JSON: ${(error as Error).message}`, position: file.name };
          continue;
        }
        yield* projectItems(value, file.name);
      }
      done += file.size;
      current = null;
    }
  }
  return {
    items,
    bytesRead: () => done + (current?.() ?? 0),
    totalBytes: files.reduce((n, f) => n + f.size, 0),
  };
}

function* projectItems(value: unknown, position: string): Generator<ImportItem> {
  if (!isObject(value)) {
    yield { error: "a project must be a JSON object", position };
    return;
  }
  const projectId = value.uuid;
  if (typeof projectId !== "string" || projectId === "") {
    yield { error: "project has no uuid", position };
    return;
  }
  const name = stringOr(value.name, "");
  const docs = (Array.isArray(value.docs) ? value.docs : []).filter(isObject);
  yield {
    stream: "projects",
    position,
    data: {
      project_id: projectId,
      name,
      description: stringOr(value.description, null),
      prompt_template: stringOr(value.prompt_template, null),
      is_private: typeof value.is_private === "boolean" ? value.is_private : null,
      is_starter_project: typeof value.is_starter_project === "boolean" ? value.is_starter_project : null,
      creator: isObject(value.creator) ? stringOr(value.creator.full_name, null) : null,
      created_at: isoTime(value.created_at),
      updated_at: isoTime(value.updated_at),
      doc_count: docs.length,
    },
  };
  for (const [i, doc] of docs.entries()) {
    const at = `${position} doc ${i + 1}`;
    if (typeof doc.uuid !== "string" || doc.uuid === "") {
      yield { error: "project doc has no uuid", position: at };
      continue;
    }
    yield {
      stream: "project_docs",
      position: at,
      data: {
        project_id: projectId,
        doc_id: doc.uuid,
        project_name: name,
        filename: stringOr(doc.filename, null),
        content: stringOr(doc.content, ""),
        created_at: isoTime(doc.created_at),
      },
    };
  }
}
