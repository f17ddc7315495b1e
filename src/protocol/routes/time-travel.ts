import { EditMessageBody, ForkBody, RewindBody } from "../request-schemas.js";
import { answer, jsonBody, type Route } from "../route.js";
import type { CheckpointList, ForkAnswer, RewindAnswer } from "../time-travel-types.js";
import { runLimit, runStarted } from "./run-answers.js";

/** Time travel: checkpoints, rewind, fork, and editing a past message (docs/time-travel.md). */
export const TIME_TRAVEL_ROUTES = {
  listCheckpoints: {
    method: "GET",
    path: "/v1/sessions/{id}/checkpoints",
    summary: "The session's checkpoints (reply ends and pauses), its branches and where it is",
    auth: "bearer",
    answer: answer<CheckpointList>(200, "`{ checkpoints, head, files }`"),
  },
  rewindSession: {
    method: "POST",
    path: "/v1/sessions/{id}/rewind",
    summary: "Move the session back to a checkpoint: conversation, grants and workspace files (undoable)",
    auth: "bearer",
    body: jsonBody(RewindBody, "rewind"),
    answer: answer<RewindAnswer>(
      200,
      "`{ checkpoint, undo, branch, messages, files?, closedReply?, memoryReverted? }`",
    ),
  },
  forkSession: {
    method: "POST",
    path: "/v1/sessions/{id}/fork",
    summary: "A new session from a checkpoint of this one, with a copy of its workspace as it was",
    auth: "bearer",
    body: jsonBody(ForkBody, "fork"),
    answer: answer<ForkAnswer>(201, "`{ session, origin, checkpoint }`"),
  },
  editMessage: {
    method: "POST",
    path: "/v1/sessions/{id}/messages/{messageId}/edit",
    summary:
      "Edit a past user message and resend it: a rewind to just before it, then a reply (a new branch)",
    auth: "bearer",
    body: jsonBody(EditMessageBody, "edited message"),
    answer: runStarted,
    alsoAnswers: runLimit,
  },
} as const satisfies Record<string, Route>;
