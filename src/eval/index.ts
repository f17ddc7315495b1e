export type {
  ConfirmAnswer,
  EvalCase,
  ExpectSpec,
  NormalMsg,
  PermissionVerdict,
  RecordedRequest,
  RecordedToolCall,
  RecordedTurn,
} from "./case.js";
export { parseCase } from "./case-schema.js";
export {
  type CaseChange,
  compareReports,
  type RateDelta,
  type ReportComparison,
  rateDelta,
} from "./compare.js";
export { type DatasetFormat, loadDataset, parseDataset, saveDataset } from "./dataset.js";
export { type Divergence, type DivergenceKind, firstDivergence, type RequestPart } from "./divergence.js";
export { EvalCaseError } from "./eval-error.js";
export { htmlReport } from "./html-report.js";
export { junitXml } from "./junit.js";
export { normalizeMsg, normalizeRequest } from "./normal-msg.js";
export { caseFromRun } from "./record-run.js";
export { type CaseFromSessionOptions, caseFromSession } from "./record-session.js";
export { type CaseFromStateOptions, caseFromState, caseFromStore } from "./record-state.js";
export {
  type CaseFromTraceOptions,
  caseFromEvents,
  caseFromTrace,
  type ReplyInputLike,
} from "./record-trace.js";
export { evalRecorder } from "./recorder-middleware.js";
export { replayModel } from "./replay-model.js";
export type { CaseSummary, Distribution, EvalReport, RunResult, ScorerSummary } from "./report.js";
export { type ReportFiles, readReport, writeReports } from "./report-files.js";
export {
  type AgentFactory,
  type AgentSetup,
  type CaseRun,
  type RunCaseOptions,
  type RunMode,
  runCase,
} from "./run-case.js";
export { type EvalOptions, runEval } from "./run-eval.js";
export { costOf, type RunLimits, type TokenPrices, withinLimits } from "./scorers/limits-scorer.js";
export { type OutputSchema, outputEquals, outputFitsSchema } from "./scorers/output-scorers.js";
export {
  type Calibration,
  calibrateJudge,
  type JudgeVerdict,
  type LabelledExample,
  type RubricOptions,
  rubricScorer,
} from "./scorers/rubric-scorer.js";
export {
  applyScorer,
  type Score,
  type ScoreInput,
  type ScoreResult,
  type Scorer,
  type ScorerOptions,
  scorer,
  weighted,
} from "./scorers/scorer.js";
export { EXPECT_TYPES, type SpecContext, scorerFromSpec } from "./scorers/scorer-from-spec.js";
export { textContains, textMatches } from "./scorers/text-scorers.js";
export { type ArgsMatcher, noDeniedCall, toolCalled, toolNotCalled } from "./scorers/tool-scorers.js";
export {
  followsRecording,
  matchesTrajectory,
  type TrajectoryPattern,
  trajectoryMatches,
} from "./scorers/trajectory-scorers.js";
export { missedThresholds, type Thresholds } from "./thresholds.js";
export type { Trajectory } from "./trajectory.js";
