// The consent page routes: GET shows the grant editor for a pending OAuth authorization (signing
// in first when needed); POST (CSRF-checked) approves with the owner's choice or denies.
import type { Hono } from "hono";
import type { RsEnv } from "../rs/env.js";
import { loadCatalog } from "./catalog.js";
import type { ConsentBackend } from "./consent-backend.js";
import { defaultSelection, grantFromForm, postedSelection } from "./consent-form.js";
import { ConsentPage } from "./consent-page.js";
import { readForm, renderPage, type WebContext } from "./http.js";
import { currentSession, requirePostSession, WebRefusal } from "./owner-gate.js";
import { webRoute } from "./web-route.js";

const PENDING_ID_RE = /^[A-Za-z0-9_-]{1,128}$/;

function gone(): WebRefusal {
  return new WebRefusal(
    404,
    "Authorization request not found",
    "This authorization request expired or was already answered. Start the connection again from the app.",
  );
}

/**
 * The CSP form-action source of the client's redirect: browsers apply form-action to the redirect
 * that follows the consent post. An origin for http(s), the scheme for a native app's scheme.
 */
export function redirectSource(uri: string): string[] {
  try {
    const url = new URL(uri);
    if ((url.protocol === "http:" || url.protocol === "https:") && !url.hostname.startsWith("[")) {
      return [url.origin];
    }
    return /^[a-z][a-z0-9+.-]*:$/.test(url.protocol) ? [url.protocol] : [];
  } catch {
    return [];
  }
}

async function pendingOf(c: WebContext, backend: ConsentBackend) {
  const id = c.req.param("id") ?? "";
  const pending = PENDING_ID_RE.test(id) ? await backend.get(c.get("deps"), id) : null;
  if (!pending || Date.parse(pending.expiresAt) <= Date.now()) throw gone();
  return pending;
}

export function registerConsent(app: Hono<RsEnv>, backend: ConsentBackend): void {
  app.get(
    "/consent/:id",
    webRoute(async (c) => {
      const session = await currentSession(c);
      if (!session) {
        return c.redirect(`/signin?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 303);
      }
      const pending = await pendingOf(c, backend);
      const catalog = await loadCatalog(c.get("deps").store);
      return renderPage(c, { formAction: redirectSource(pending.redirectUri) }, (nonce) => (
        <ConsentPage
          nonce={nonce}
          csrf={session.csrf}
          pending={pending}
          catalog={catalog}
          selection={defaultSelection(catalog, pending.requestedScope)}
        />
      ));
    }),
  );

  app.post(
    "/consent/:id",
    webRoute(async (c) => {
      const form = await readForm(c);
      const session = await requirePostSession(c, form);
      const pending = await pendingOf(c, backend);
      const deps = c.get("deps");
      if (form.get("decision") === "deny") {
        const { redirectTo } = await backend.deny(deps, pending.id);
        return c.redirect(redirectTo, 303);
      }
      if (form.get("decision") !== "approve")
        throw new WebRefusal(403, "Request refused", "Approve or deny.");
      const catalog = await loadCatalog(deps.store);
      const choice = grantFromForm(catalog, form, {
        clientName: pending.clientName,
        redirectHost: pending.redirectHost,
        now: new Date(),
      });
      if (!choice.ok) {
        return renderPage(c, { status: 400, formAction: redirectSource(pending.redirectUri) }, (nonce) => (
          <ConsentPage
            nonce={nonce}
            csrf={session.csrf}
            pending={pending}
            catalog={catalog}
            selection={postedSelection(form)}
            error={choice.error}
          />
        ));
      }
      const { redirectTo } = await backend.approve(deps, pending.id, choice.grant);
      return c.redirect(redirectTo, 303);
    }),
  );
}
