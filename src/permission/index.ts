export {
  type ApproverOptions,
  type ApproverPolicy,
  checkApproverOptions,
  notAnApprover,
  policyFor,
  type RolesOf,
} from "./approver-policy.js";
export { boundaryDenial } from "./boundary.js";
export {
  CREDENTIAL_DIRECTORIES,
  CREDENTIAL_FILES,
  type CredentialLists,
  credentialPathMatch,
  credentialPathReason,
  DEFAULT_CREDENTIAL_LISTS,
  matchingCredentialEntry,
  pathSegments,
  plainCredentialNames,
} from "./credential-paths.js";
export {
  DANGEROUS_DIRECTORIES,
  DANGEROUS_FILES,
  dangerousGlobReason,
  dangerousPathReason,
} from "./dangerous-paths.js";
export {
  type Approval,
  type Approver,
  askKey,
  type CallToDecide,
  type CallVerdict,
  canonicalInput,
  DecidedCall,
  decideCall,
  UndecidedInputError,
} from "./decided-call.js";
export { decidePermission } from "./engine.js";
export { impliedPaths, pathsOfCall } from "./implied-paths.js";
export { inputChanges } from "./input-diff.js";
export { matchPathRule } from "./path-rule.js";
export {
  absolutePath,
  assessPath,
  baseDirectory,
  expandHome,
  isInside,
  type PathAssessment,
  pathPermission,
  pathsAreSafe,
  realPath,
  realWorkingDirectories,
} from "./paths.js";
export {
  type PermissionOptions,
  type PermissionRuleInput,
  permissionContextFrom,
  ruleFromInput,
} from "./permission-options.js";
export { unofferedRules } from "./remembered-rules.js";
export {
  addRules,
  formatRule,
  PermissionRuleError,
  parseRule,
  ruleFromString,
  ruleNamesTool,
} from "./rule.js";
export type {
  PermissionBoundary,
  PermissionContext,
  PermissionDecision,
  PermissionMode,
  PermissionRule,
  PermissionSubject,
  RuleBehavior,
  RuleMatchContext,
  RuleSource,
  ToolPermissionResult,
} from "./types.js";
