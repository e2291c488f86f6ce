/** Light and dark theme: follows the system until the user picks one; the pick is remembered. */

const KEY = "gradstep.theme";
type Theme = "light" | "dark";

function stored(): Theme | null {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : null;
  } catch {
    return null;
  }
}

/** `forced` (an embed's `theme=` option) wins over the remembered pick and is not remembered. */
export function initTheme(button: HTMLButtonElement, forced: Theme | null = null): void {
  const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  let chosen = forced ?? stored();
  const effective = (): Theme => chosen ?? (media?.matches ? "dark" : "light");
  const apply = (): void => {
    const root = document.documentElement;
    if (chosen) root.dataset["theme"] = chosen;
    else delete root.dataset["theme"];
    const dark = effective() === "dark";
    button.setAttribute("aria-label", dark ? "Switch to light theme" : "Switch to dark theme");
    button.setAttribute("aria-pressed", String(dark));
    button.title = dark ? "Dark theme (click for light)" : "Light theme (click for dark)";
  };
  button.addEventListener("click", () => {
    chosen = effective() === "dark" ? "light" : "dark";
    if (forced) return apply();
    try {
      localStorage.setItem(KEY, chosen);
    } catch {
      /* the choice lasts for this page only */
    }
    apply();
  });
  media?.addEventListener("change", apply);
  apply();
}
