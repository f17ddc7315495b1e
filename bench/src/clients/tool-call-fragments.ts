/** Chat Completions tool calls streamed as fragments by index, accumulated (raw fetch and the openai SDK). */
export interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

export interface CallFragment {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export function addCallFragment(calls: AssembledCall[], fragment: CallFragment): void {
  let call = calls[fragment.index];
  if (!call) {
    call = { id: "", name: "", arguments: "" };
    calls[fragment.index] = call;
  }
  if (fragment.id) call.id = fragment.id;
  if (fragment.function?.name) call.name = fragment.function.name;
  if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
}
