import type { Message } from "@a2a-js/sdk";
import type { AgentEvent } from "../../event/index.js";
import { ConfirmAnswerSchema } from "../../protocol/index.js";
import type { ConfirmAnswer } from "../server/runtime/service-runtime.js";
import { dataOfParts, REQUESTS_KEY, textOfParts } from "./task-events.js";

/** One waiting call as an input-required task lists it (`askRequest`): where its answer goes. */
export interface TaskRequest {
  sessionId: string;
  replyId: string;
  toolCallId: string;
  input: unknown;
}

/** The requests an input-required status message lists (its data part's `agentscope.requests`). */
export function requestsOf(message: Message | undefined): TaskRequest[] {
  for (const value of dataOfParts(message?.parts ?? [])) {
    const requests = (value as Record<string, unknown> | null)?.[REQUESTS_KEY];
    if (Array.isArray(requests)) return requests as TaskRequest[];
  }
  return [];
}

/**
 * Answers from an A2A message: a data part `{ confirmResults: [{ toolCallId, confirmed, ... }] }` or
 * `{ confirmed: boolean }` (all waiting calls), else its text ("yes"/"approve"/"ok" confirms all,
 * anything else refuses). `waiting` are the calls "all" means. Answers are checked like the REST
 * `answers` (a bad one is an error naming the field); an edited `input` or a `rules` entry is
 * decided by the agent's permission gate like any other answer.
 */
export function answersOf(
  message: Message,
  waiting: ReadonlyArray<{ id: string; input: unknown }>,
): ConfirmAnswer[] {
  const data = dataOfParts(message.parts)[0] as
    | { confirmResults?: ConfirmAnswer[]; confirmed?: boolean }
    | undefined;
  if (data?.confirmResults !== undefined) {
    const parsed = ConfirmAnswerSchema.array().min(1).safeParse(data.confirmResults);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`confirmResults.${issue.path.join(".")}: ${issue.message}`);
    }
    return parsed.data;
  }
  const text = textOfParts(message.parts).trim();
  const confirmed = data?.confirmed ?? /^(y|yes|approve|approved|ok|confirm)\b/i.test(text);
  return waiting.map((call) => {
    const answer = { toolCallId: call.id, confirmed, input: call.input } as ConfirmAnswer;
    if (!confirmed && text) answer.reason = text;
    return answer;
  });
}

/** Answers for one session: its spawned sub-agent's, or the context's own (`replyId` then set). */
export interface SessionAnswers {
  sessionId: string;
  replyId?: string;
  answers: ConfirmAnswer[];
}

/**
 * Routes answers to the sessions that asked: a call a spawned sub-agent session waits on goes to that
 * session (each first, as its outcome is what the context waits on), every other answer to the
 * context's own session, where the runtime checks it against what waits there (an unknown call is
 * refused before anything runs). `pending` is the REQUIRE event the task paused on, if any.
 */
export function routeAnswers(
  contextSession: string,
  requests: readonly TaskRequest[],
  message: Message,
  pending: AgentEvent | undefined,
): SessionAnswers[] {
  const own = pending?.type === "REQUIRE_USER_CONFIRM" ? pending : undefined;
  const spawned = requests.filter((request) => request.sessionId !== contextSession);
  const ownIds = new Set(own?.toolCalls.map((call) => call.id) ?? []);
  const waiting = [
    ...(own?.toolCalls.filter((call) => !spawned.some((r) => r.toolCallId === call.id)) ?? []),
    ...spawned.filter((r) => !ownIds.has(r.toolCallId)).map((r) => ({ id: r.toolCallId, input: r.input })),
  ];
  const sessionOf = new Map(spawned.map((request) => [request.toolCallId, request.sessionId]));
  const answers = answersOf(message, waiting);
  // with a spawned session's ask among them, a call nothing lists is refused before any session runs
  const listed = new Set([...requests.map((r) => r.toolCallId), ...ownIds]);
  const unknown = spawned.length > 0 ? answers.find((answer) => !listed.has(answer.toolCallId)) : undefined;
  if (unknown)
    throw new Error(
      `unknown tool call "${unknown.toolCallId}": nothing in this task waits on it (waiting: ${[...listed].join(", ")})`,
    );
  const groups = new Map<string, ConfirmAnswer[]>();
  for (const answer of answers) {
    const sessionId = sessionOf.get(answer.toolCallId) ?? contextSession;
    groups.set(sessionId, [...(groups.get(sessionId) ?? []), answer]);
  }
  const ownReply = own && !own.toolCalls.some((call) => sessionOf.has(call.id)) ? own.replyId : undefined;
  return [...groups.entries()]
    .map(
      ([sessionId, answers]): SessionAnswers => ({
        sessionId,
        answers,
        ...(sessionId === contextSession && ownReply ? { replyId: ownReply } : {}),
      }),
    )
    .sort((a, b) => Number(a.sessionId === contextSession) - Number(b.sessionId === contextSession));
}
