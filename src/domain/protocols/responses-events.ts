import type { ChatCompletionChunk, Usage } from "../../providers";
import { callItem, type Item, type Json, responsesUsage, rid } from "./responses-format";

// OpenAI's Responses API as Hone's clients speak it on POST /api/v1/responses, translated to and
// from chat completions (which every upstream Hone has can answer): the request and its history as
// chat messages, the completion as a Response, its chunks as the Responses stream's events.

/**
 * Chat chunks in, the Responses stream's events out, as they arrive: an item is added when its first
 * delta comes (reasoning, a message, a call by its index) and done when another starts or the stream
 * ends. A custom tool's input is inside the call's JSON arguments, so it is sent once whole.
 */
export function createResponseEventWriter(envelope: Json, customTools: Set<string>) {
  let seq = 0;
  const output: Item[] = [];
  type Open =
    | { kind: "reasoning"; item: Item; text: string }
    | { kind: "message"; item: Item; text: string }
    | { kind: "call"; item: Item; index: number; args: string; name: string; id: string };
  let open: Open | null = null;
  let finish: string | null = null;
  let usage: Usage | null = null;
  const ev = (type: string, data: Json): Json => ({ type, sequence_number: seq++, ...data });

  const close = (out: Json[]) => {
    if (!open) return;
    const output_index = output.length;
    const item_id = String(open.item.id);
    let done: Item;
    if (open.kind === "reasoning") {
      const part = { type: "summary_text", text: open.text };
      out.push(ev("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: open.text }));
      out.push(ev("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part }));
      done = { ...open.item, summary: [part] };
    } else if (open.kind === "message") {
      const part = { type: "output_text", text: open.text, annotations: [], logprobs: [] };
      out.push(ev("response.output_text.done", { item_id, output_index, content_index: 0, text: open.text, logprobs: [] }));
      out.push(ev("response.content_part.done", { item_id, output_index, content_index: 0, part }));
      done = { ...open.item, status: "completed", content: [part] };
    } else {
      const item = callItem({ id: open.id, function: { name: open.name, arguments: open.args } }, customTools);
      if (item.type === "custom_tool_call") {
        out.push(ev("response.custom_tool_call_input.delta", { item_id, output_index, delta: item.input }));
        out.push(ev("response.custom_tool_call_input.done", { item_id, output_index, input: item.input }));
      } else out.push(ev("response.function_call_arguments.done", { item_id, output_index, name: open.name, arguments: open.args }));
      done = { ...open.item, ...item, id: item_id, status: "completed" };
    }
    out.push(ev("response.output_item.done", { output_index, item: done }));
    output.push(done);
    open = null;
  };
  const start = (out: Json[], next: Open) => {
    close(out);
    open = next;
    out.push(ev("response.output_item.added", { output_index: output.length, item: next.item }));
  };

  return {
    begin(): Json[] {
      return [ev("response.created", { response: envelope }), ev("response.in_progress", { response: envelope })];
    },
    add(chunk: ChatCompletionChunk): Json[] {
      const out: Json[] = [];
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        if (choice.index !== 0) continue;
        const d = choice.delta ?? {};
        if (typeof d.reasoning_content === "string" && d.reasoning_content) {
          if (open?.kind !== "reasoning") {
            start(out, { kind: "reasoning", item: { id: rid("rs"), type: "reasoning", summary: [] }, text: "" });
            out.push(
              ev("response.reasoning_summary_part.added", {
                item_id: open!.item.id,
                output_index: output.length,
                summary_index: 0,
                part: { type: "summary_text", text: "" },
              }),
            );
          }
          const o = open as unknown as { text: string; item: Item };
          o.text += d.reasoning_content;
          out.push(
            ev("response.reasoning_summary_text.delta", { item_id: o.item.id, output_index: output.length, summary_index: 0, delta: d.reasoning_content }),
          );
        }
        const text = typeof d.content === "string" ? d.content : "";
        if (text) {
          if (open?.kind !== "message") {
            start(out, { kind: "message", item: { id: rid("msg"), type: "message", status: "in_progress", role: "assistant", content: [] }, text: "" });
            out.push(
              ev("response.content_part.added", {
                item_id: open!.item.id,
                output_index: output.length,
                content_index: 0,
                part: { type: "output_text", text: "", annotations: [], logprobs: [] },
              }),
            );
          }
          const o = open as unknown as { text: string; item: Item };
          o.text += text;
          out.push(ev("response.output_text.delta", { item_id: o.item.id, output_index: output.length, content_index: 0, delta: text, logprobs: [] }));
        }
        for (const call of d.tool_calls ?? []) {
          if (open?.kind !== "call" || open.index !== call.index) {
            const name = call.function?.name ?? "";
            const callId = call.id ?? rid("call");
            const custom = customTools.has(name);
            const item: Item = custom
              ? { id: rid("ctc"), type: "custom_tool_call", status: "in_progress", call_id: callId, name, input: "" }
              : { id: rid("fc"), type: "function_call", status: "in_progress", call_id: callId, name, arguments: "" };
            start(out, { kind: "call", item, index: call.index, args: "", name, id: callId });
          }
          const o = open as unknown as { args: string; item: Item };
          const piece = call.function?.arguments ?? "";
          if (piece) {
            o.args += piece;
            if (o.item.type === "function_call")
              out.push(ev("response.function_call_arguments.delta", { item_id: o.item.id, output_index: output.length, delta: piece }));
          }
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
      return out;
    },
    /** Closes the last item; the finished Response and its last event. */
    end(): { events: Json[]; response: Json } {
      const out: Json[] = [];
      close(out);
      const incomplete = finish === "length" || finish === "content_filter";
      const response = {
        ...envelope,
        status: incomplete ? "incomplete" : "completed",
        incomplete_details: incomplete ? { reason: finish === "length" ? "max_output_tokens" : "content_filter" } : null,
        output,
        usage: responsesUsage(usage),
      };
      out.push(ev(incomplete ? "response.incomplete" : "response.completed", { response }));
      return { events: out, response };
    },
    /** A failure mid-stream: the Response as far as it got, failed. */
    fail(error: { code: string; message: string }): Json[] {
      const out: Json[] = [];
      close(out);
      out.push(ev("response.failed", { response: { ...envelope, status: "failed", error, output, usage: responsesUsage(usage) } }));
      return out;
    },
  };
}
