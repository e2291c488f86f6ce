/** One plain sentence for each timeline step, read aloud through aria-live. */

import { addValues, formatSum, formatValue } from "./format";
import type { TraceLookup } from "./trace/lookup";
import type { ArrayValue, NodeRan, TraceEvent } from "./trace/types";

function received(ev: NodeRan): string {
  const grads = ev.received.map((c) => c.grad);
  const total = ev.grad_outputs[0] ?? addValues(grads);
  if (grads.length <= 1) return formatValue(grads[0] ?? total);
  return formatSum(grads, total);
}

/** "2.0 to SinBackward0 and 2.0 + 2.0 = 4.0 to x": what one node sent, grouped by destination. */
function sentText(ev: NodeRan, lookup: TraceLookup): string {
  const groups = new Map<string, (ArrayValue | null)[]>();
  for (const s of ev.sent) {
    const edge = lookup.edges.get(s.edge);
    const key = edge ? edge.target : s.edge;
    const list = groups.get(key) ?? [];
    list.push(s.grad);
    groups.set(key, list);
  }
  const parts: string[] = [];
  for (const [target, grads] of groups) {
    const where = lookup.destination(target);
    const real = grads.filter((g): g is ArrayValue => g !== null);
    if (real.length === 0) parts.push(`nothing (None) to ${where}`);
    else if (grads.length === 1) parts.push(`${formatValue(real[0])} to ${where}`);
    else parts.push(`${formatSum(grads, addValues(real))} to ${where}`);
  }
  if (parts.length <= 1) return parts[0] ?? "";
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

function lineSuffix(line: number | null | undefined): string {
  return line ? ` (line ${line})` : "";
}

export function narrate(ev: TraceEvent | null, lookup: TraceLookup): string {
  if (!ev) return "Nothing ran: the snippet produced no steps.";
  switch (ev.kind) {
    case "tensor": {
      const t = lookup.tensors.get(ev.tensor);
      const rg = t?.requires_grad ? " with requires_grad=True" : "";
      return `Created ${lookup.tensorName(ev.tensor)} = ${formatValue(t?.value)}${rg}${lineSuffix(ev.line)}.`;
    }
    case "op": {
      const node = ev.node ? lookup.nodes.get(ev.node) : undefined;
      const out = ev.tensors[0];
      const t = out ? lookup.tensors.get(out) : undefined;
      const expr = lookup.sourceText(node?.span ?? t?.span) ?? node?.op ?? "an operation";
      const named = t && t.names.length > 0 ? `${t.names.join(" = ")} = ` : "";
      const value = t ? formatValue(t.value) : "?";
      const fn = node ? `; autograd records ${node.name}` : "; no gradient is recorded";
      return `Forward: ${named}${expr} gives ${value}${fn}.`;
    }
    case "inplace": {
      const who = lookup.tensorName(ev.tensor);
      const fn = ev.node ? `, its grad_fn is now ${lookup.nodeName(ev.node)}` : "";
      // Only aliases the user can see: a graph box or a grad_fn node (not, say, the tensor a
      // module wrapped into a Parameter, which shares the parameter's memory).
      const names = (ev.aliases ?? [])
        .filter((a) => lookup.isShown(a.tensor) || lookup.tensors.get(a.tensor)?.grad_fn)
        .map((a) => lookup.tensorName(a.tensor));
      const shared = names.length ? ` ${names.join(", ")} ${names.length > 1 ? "share" : "shares"} its memory and changed too.` : "";
      return `In-place change: ${who} is now ${formatValue(ev.value)} (version ${ev.version})${fn}.${shared}`;
    }
    case "print":
      return `print: ${ev.text.replace(/\n$/, "")}`;
    case "grad_mode":
      return ev.enabled ? "Gradient tracking is back on." : "Gradient tracking is off (torch.no_grad): no graph is recorded.";
    case "backward_begin": {
      const roots = ev.roots
        .map((r) => `${lookup.tensorName(r.tensor)} with gradient ${formatValue(r.grad)}`)
        .join(" and ");
      const how = ev.api === "grad" ? "torch.autograd.grad" : "backward()";
      return `Backward pass ${ev.pass} starts (${how}): seed ${roots}.`;
    }
    case "node_run": {
      const node = lookup.nodes.get(ev.node);
      if (node?.kind === "accumulate") {
        return `AccumulateGrad for ${lookup.tensorName(node.variable)} receives ${received(ev)}.`;
      }
      const name = lookup.nodeName(ev.node);
      if (ev.sent.length === 0) {
        return `${name} receives ${received(ev)}; none of its inputs needs a gradient, so it sends nothing.`;
      }
      return `${name} receives ${received(ev)} and sends ${sentText(ev, lookup)}.`;
    }
    case "accumulate": {
      const who = lookup.tensorName(ev.tensor);
      const sum = formatSum([ev.before ?? "0", ev.contribution], ev.after);
      return `AccumulateGrad adds ${formatValue(ev.contribution)} to ${who}.grad: ${sum}.`;
    }
    case "grad_set": {
      const who = lookup.tensorName(ev.tensor);
      if (!ev.grad) return `${who}.grad is cleared to None${lineSuffix(ev.line)}.`;
      return `${who}.grad is set to ${formatValue(ev.grad)}${lineSuffix(ev.line)}.`;
    }
    case "retain_grad":
      return `${lookup.tensorName(ev.tensor)}.grad is kept (retain_grad): ${formatValue(ev.grad)}.`;
    case "capture":
      return `torch.autograd.grad returns ${formatValue(ev.grad)} for ${lookup.tensorName(ev.tensor)}.`;
    case "hook": {
      const where = lookup.nodes.has(ev.target) ? lookup.nodeName(ev.target) : lookup.tensorName(ev.target);
      const result = ev.result ? ` and returns ${formatValue(ev.result)}` : "";
      return `Hook ${ev.name} (${ev.hook}) on ${where} runs${result}.`;
    }
    case "backward_end": {
      const freed = ev.freed.length > 0 ? ` Saved tensors of ${ev.freed.length} node(s) are freed.` : "";
      return `Backward pass ${ev.pass} is done.${freed}`;
    }
    case "error": {
      const e = ev.error;
      return `${e.type}: ${e.message}${lineSuffix(e.line)}`;
    }
  }
}
