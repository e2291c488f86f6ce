/** The share dialog: permalink, iframe snippet and Markdown link, each with a copy button. */

import type { ShareSnippets } from "../embed";
import { h } from "./dom";

type Field = "permalink" | "iframe" | "markdown";

const FIELDS: { key: Field; label: string; rows: number }[] = [
  { key: "permalink", label: "Link to this code and step", rows: 2 },
  { key: "iframe", label: "Embed in a web page or LMS (HTML)", rows: 4 },
  { key: "markdown", label: "Markdown link", rows: 2 },
];

async function copyText(text: string, field: HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard permission (an insecure page, an old browser): copy the selected text instead.
    field.focus();
    field.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    }
  }
}

export class ShareDialog {
  readonly dialog: HTMLDialogElement;
  private readonly title: HTMLInputElement;
  private readonly fields = new Map<Field, HTMLTextAreaElement>();
  private readonly status: HTMLElement;

  constructor(private readonly make: (title: string) => Promise<ShareSnippets>) {
    this.title = h("input", { type: "text", id: "gs-share-title", "data-testid": "share-title", value: "gradstep" });
    this.status = h("p", { class: "share-status", "data-testid": "share-status", "aria-live": "polite", role: "status" });
    const close = h("button", { type: "button", "data-testid": "share-close", "aria-label": "Close" , text: "Close" });
    const rows = FIELDS.map(({ key, label, rows }) => {
      const id = `gs-share-${key}`;
      const area = h("textarea", { id, rows: String(rows), readonly: "", spellcheck: "false", "data-testid": `share-${key}` });
      this.fields.set(key, area);
      const copy = h("button", { type: "button", class: "copy", "data-testid": `copy-${key}`, "aria-label": `Copy: ${label}`, text: "Copy" });
      copy.addEventListener("click", () => void this.copy(key, label));
      area.addEventListener("focus", () => area.select());
      return h("div", { class: "share-row" }, h("label", { for: id, text: label }), h("div", { class: "share-field" }, area, copy));
    });
    this.dialog = h(
      "dialog",
      { class: "share", "data-testid": "share-dialog", "aria-labelledby": "gs-share-heading" },
      h("h2", { id: "gs-share-heading", text: "Share" }),
      h("div", { class: "share-row" }, h("label", { for: "gs-share-title", text: "Title (for the embed and the Markdown link)" }), this.title),
      ...rows,
      h("div", { class: "share-foot" }, this.status, close),
    );
    close.addEventListener("click", () => this.dialog.close());
    this.title.addEventListener("input", () => void this.refresh());
    // A click on the backdrop (outside the box) closes the dialog, like Escape.
    this.dialog.addEventListener("click", (e) => {
      if (e.target === this.dialog) {
        const r = this.dialog.getBoundingClientRect();
        const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
        if (!inside) this.dialog.close();
      }
    });
    document.body.append(this.dialog);
  }

  async open(): Promise<void> {
    this.status.textContent = "";
    await this.refresh();
    if (!this.dialog.open) this.dialog.showModal();
    const first = this.fields.get("permalink");
    first?.focus();
  }

  private async refresh(): Promise<void> {
    const snippets = await this.make(this.title.value);
    for (const [key, area] of this.fields) area.value = snippets[key];
  }

  private async copy(key: Field, label: string): Promise<void> {
    const area = this.fields.get(key);
    if (!area) return;
    const ok = await copyText(area.value, area);
    this.status.textContent = ok ? `Copied: ${label.toLowerCase()}.` : "Could not copy: select the text and press Ctrl+C.";
  }
}
