// The V8 settings `pdpp import` runs with (bin/pdpp.js starts the import's process with them; the
// import benchmark, bench/import-child.ts, too). An import's main thread allocates every record's
// strings and holds a batch of them until its commit: with V8's defaults, sized by the machine's
// memory, its young generation grows to 64 MiB and its old one to ~4x what survives a collection,
// and the heap peaked at 200-280 MB around a 40 MB live set (issue 19: peak RSS <= 300 MB). They
// cannot be set once the process runs (v8.setFlagsFromString leaves the heap as configured).
export const IMPORT_NODE_FLAGS = ["--max-semi-space-size=8", "--heap-growing-percent=50"];
