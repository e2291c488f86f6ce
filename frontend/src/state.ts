/** App state to and from the URL fragment: code deflated and base64url-encoded, step and options. */

export interface AppState {
  code: string;
  /** 0-based step; null means "the player's default". */
  step: number | null;
  saved: boolean;
}

export const DEFAULT_CODE = `import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x + torch.sin(x)
y.backward()
print(x.grad)
`;

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const body = new Blob([bytes as BlobPart]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(body).arrayBuffer());
}

export async function compressCode(code: string): Promise<string> {
  const raw = new TextEncoder().encode(code);
  return toBase64Url(await pipe(raw, new CompressionStream("deflate-raw")));
}

export async function decompressCode(packed: string): Promise<string> {
  const bytes = await pipe(fromBase64Url(packed), new DecompressionStream("deflate-raw"));
  return new TextDecoder().decode(bytes);
}

/** "#c=<deflated code>&s=7&saved=1" */
export async function encodeState(state: AppState): Promise<string> {
  const params = new URLSearchParams();
  params.set("c", await compressCode(state.code));
  if (state.step !== null) params.set("s", String(state.step));
  if (state.saved) params.set("saved", "1");
  return `#${params.toString()}`;
}

/** Reads a fragment; missing or damaged parts fall back to `fallback`. */
export async function decodeState(hash: string, fallback: AppState): Promise<AppState> {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  let code = fallback.code;
  const packed = params.get("c");
  if (packed) {
    try {
      code = await decompressCode(packed);
    } catch {
      code = fallback.code;
    }
  } else if (params.has("code")) {
    code = params.get("code") ?? fallback.code;
  }
  const stepText = params.get("s");
  const step = stepText !== null && /^\d+$/.test(stepText) ? Number(stepText) : fallback.step;
  const saved = params.has("saved") ? params.get("saved") === "1" : fallback.saved;
  return { code, step, saved };
}
