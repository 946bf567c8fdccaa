// The owner pages' icon (an SVG "p" on the console's accent blue), served from this server so the
// CSP's img-src 'self' admits it; at /favicon.ico too, for browsers that ask there first.
import type { Hono } from "hono";
import type { RsEnv } from "../rs/env.js";

const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5fff"/><path d="M11.5 25V8h6a5.5 5.5 0 0 1 0 11h-6" fill="none" stroke="#fff" stroke-width="3.4" stroke-linecap="round" stroke-linejoin="round"/></svg>`;

export function registerFavicon(app: Hono<RsEnv>): void {
  const icon = () =>
    new Response(ICON, {
      headers: {
        "content-type": "image/svg+xml",
        "cache-control": "public, max-age=86400",
        "content-security-policy": "default-src 'none'",
        "x-content-type-options": "nosniff",
      },
    });
  app.get("/favicon.svg", icon);
  app.get("/favicon.ico", icon);
}
