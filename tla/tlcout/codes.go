package tlcout

import "fmt"

// Code is a TLC message code: the number in "@!@!@STARTMSG code:class @!@!@",
// one of the constants of TLC's tlc2.output.EC.
type Code int

// Untagged is the code this package gives to output outside any message,
// such as SANY's parser log and the spec's Print output.
const Untagged Code = 0

// The message codes this package knows by name, as numbered in TLC's
// tlc2/output/EC.java (v1.8.0, rev cc6b616). Codes not listed here still
// pass through Reader unchanged.
const (
	CodeGeneral                               Code = 1000 // an error without a specific code, typically an exception while evaluating the spec
	CodeSystemOutOfMemory                     Code = 1001
	CodeSystemOutOfMemoryTooManyInit          Code = 1002
	CodeSystemOutOfMemoryLiveness             Code = 1003
	CodeSystemStackOverflow                   Code = 1005
	CodeWrongCommandlineParamsSimulator       Code = 1101
	CodeWrongCommandlineParamsTLC             Code = 1102
	CodeMetadirExists                         Code = 2100
	CodeMetadirCanNotBeCreated                Code = 2101
	CodeInitialState                          Code = 2102
	CodeNestedExpression                      Code = 2103 // the positions of the expressions being evaluated when an error occurred
	CodeAssumptionFalse                       Code = 2104
	CodeAssumptionEvaluationError             Code = 2105
	CodeStateNotCompletelySpecifiedInitial    Code = 2106
	CodeInvariantViolatedInitial              Code = 2107
	CodePropertyViolatedInitial               Code = 2108
	CodeStateNotCompletelySpecifiedNext       Code = 2109
	CodeInvariantViolatedBehavior             Code = 2110
	CodeInvariantEvaluationFailed             Code = 2111
	CodeActionPropertyViolatedBehavior        Code = 2112
	CodeActionPropertyEvaluationFailed        Code = 2113
	CodeDeadlockReached                       Code = 2114
	CodeStatesAndNoNextAction                 Code = 2115
	CodeTemporalPropertyViolated              Code = 2116
	CodeFailedToRecoverNext                   Code = 2117
	CodeNoStatesSatisfyingInit                Code = 2118
	CodeErrorState                            Code = 2120
	CodeBehaviorUpToThisPoint                 Code = 2121 // starts an error trace
	CodeBackToState                           Code = 2122 // ends a lasso-shaped error trace
	CodeFailedToRecoverInit                   Code = 2123
	CodeBug                                   Code = 2128
	CodeValueAssertFailed                     Code = 2132
	CodeInvariantViolatedLevel                Code = 2146
	CodeFingerprintException                  Code = 2147
	CodeStateNotCompletelySpecifiedLive       Code = 2148
	CodeInvariantConstantLevel                Code = 2149
	CodeModuleValueJavaMethodOverride         Code = 2154
	CodeModuleCompareValue                    Code = 2155
	CodeFeatureUnsupported                    Code = 2156
	CodeModuleValueJavaMethodOverrideLoaded   Code = 2168
	CodeModuleArgumentError                   Code = 2169
	CodeArgumentMismatch                      Code = 2170
	CodeParsingFailed2                        Code = 2171
	CodeTooManyPossibleStates                 Code = 2172
	CodeModuleOverflow                        Code = 2178
	CodeModuleDivisionByZero                  Code = 2179
	CodeModuleArgumentNotInDomain             Code = 2183
	CodeModuleApplyEmptySeq                   Code = 2184
	CodeStarting                              Code = 2185
	CodeFinished                              Code = 2186
	CodeModeMC                                Code = 2187
	CodeModeSimulation                        Code = 2188
	CodeComputingInit                         Code = 2189
	CodeInitGenerated1                        Code = 2190
	CodeInitGenerated2                        Code = 2191
	CodeCheckingTemporalProps                 Code = 2192
	CodeSuccess                               Code = 2193
	CodeSearchDepth                           Code = 2194
	CodeCheckpointStart                       Code = 2195
	CodeCheckpointEnd                         Code = 2196
	CodeCheckpointRecoverStart                Code = 2197
	CodeCheckpointRecoverEnd                  Code = 2198
	CodeStats                                 Code = 2199
	CodeProgressStats                         Code = 2200
	CodeCoverageStart                         Code = 2201
	CodeCoverageEnd                           Code = 2202
	CodeStatsDFID                             Code = 2204
	CodeProgressStatsDFID                     Code = 2206
	CodeInitGenerated3                        Code = 2207
	CodeInitGenerated4                        Code = 2208
	CodeProgressSimulation                    Code = 2209
	CodeStatsSimulation                       Code = 2210
	CodeFPCompleted                           Code = 2211 // a fingerprint set's goodbye ("HOST, work completed. Thank you!")
	CodeLiveImplied                           Code = 2212
	CodeStatePrint1                           Code = 2216
	CodeStatePrint2                           Code = 2217
	CodeStatePrint3                           Code = 2218
	CodeSANYEnd                               Code = 2219
	CodeSANYStart                             Code = 2220
	CodeConfigValueNotAssignedToConstantParam Code = 2222
	CodeConfigRHSIDAppearedAfterLHSID         Code = 2223
	CodeConfigWrongSubstitution               Code = 2224
	CodeConfigWrongSubstitutionNumberOfArgs   Code = 2225
	CodeConfigIDDoesNotAppearInSpec           Code = 2226
	CodeConfigNotBothSpecAndInit              Code = 2227
	CodeConfigIDRequiresNoArg                 Code = 2228
	CodeConfigSpecifiedNotDefined             Code = 2229
	CodeConfigIDHasValue                      Code = 2230
	CodeConfigMissingInit                     Code = 2231
	CodeConfigMissingNext                     Code = 2232
	CodeConfigIDMustNotBeConstant             Code = 2233
	CodeConfigOpNoArgs                        Code = 2234
	CodeConfigOpNotInSpec                     Code = 2235
	CodeConfigOpIsEqual                       Code = 2236
	CodeConfigSpecIsTrivial                   Code = 2237
	CodeCantHandleSubscript                   Code = 2238
	CodeCantHandleConjunct                    Code = 2239
	CodeCantHandleTooManyNextStateRels        Code = 2240
	CodeConfigPropertyNotCorrectlyDefined     Code = 2241
	CodeConfigOpArityInconsistent             Code = 2242
	CodeConfigNoStateType                     Code = 2243
	CodeCantHandleRealNumbers                 Code = 2244
	CodeNoModules                             Code = 2245
	CodeLiveFormulaTautology                  Code = 2253
	CodeConfigNoSpecButProperty               Code = 2257
	CodeConfigNoFairnessButLiveProperty       Code = 2259
	CodeVersion                               Code = 2262
	CodeCounterExample                        Code = 2264 // starts a liveness error trace
	CodeIntegerTooBig                         Code = 2265
	CodeCheckingTemporalPropsEnd              Code = 2267
	CodeStateGraphOutdegree                   Code = 2268
	CodeComputingInitProgress                 Code = 2269
	CodeModeMCDFS                             Code = 2271
	CodeConfigPropertyActionLevel             Code = 2272
	CodeConfigPropertyActionLevelSquareASubV  Code = 2273
	CodeConfigPropertyActionLevelAngleASubV   Code = 2274
	CodeConfigUndefinedOrNoOperator           Code = 2280
	CodeConfigSubstitutionNonConstant         Code = 2281
	CodeTraceTooLong                          Code = 2282
	CodePostconditionFalse                    Code = 2404
	CodePostconditionEvaluationError          Code = 2405
	CodeTESpecGenerationComplete              Code = 2501
	CodeTESpecGenerationError                 Code = 2502
	CodeParsingFailed                         Code = 3002
	CodeCfgErrorReadingFile                   Code = 5001
	CodeCfgGeneral                            Code = 5002
	CodeCfgMissingID                          Code = 5003
	CodeCfgTwiceKeyword                       Code = 5004
	CodeCfgExpectID                           Code = 5005
	CodeCfgExpectedSymbol                     Code = 5006
	// TLC's distributed mode (tlc2.tool.distributed): the server is
	// ready for workers, a worker registered, left, or was lost, and a
	// worker's figures at the end.
	CodeDistributedServerRunning    Code = 7000
	CodeDistributedWorkerRegistered Code = 7001
	CodeDistributedWorkerLeft       Code = 7002
	CodeDistributedWorkerStats      Code = 7003
	CodeDistributedWorkerLost       Code = 7006
	CodeModuleOverrideStdout        Code = 20000
)

var codeNames = map[Code]string{
	Untagged:                                  "UNTAGGED",
	CodeGeneral:                               "GENERAL",
	CodeSystemOutOfMemory:                     "SYSTEM_OUT_OF_MEMORY",
	CodeSystemOutOfMemoryTooManyInit:          "SYSTEM_OUT_OF_MEMORY_TOO_MANY_INIT",
	CodeSystemOutOfMemoryLiveness:             "SYSTEM_OUT_OF_MEMORY_LIVENESS",
	CodeSystemStackOverflow:                   "SYSTEM_STACK_OVERFLOW",
	CodeWrongCommandlineParamsSimulator:       "WRONG_COMMANDLINE_PARAMS_SIMULATOR",
	CodeWrongCommandlineParamsTLC:             "WRONG_COMMANDLINE_PARAMS_TLC",
	CodeMetadirExists:                         "TLC_METADIR_EXISTS",
	CodeMetadirCanNotBeCreated:                "TLC_METADIR_CAN_NOT_BE_CREATED",
	CodeInitialState:                          "TLC_INITIAL_STATE",
	CodeNestedExpression:                      "TLC_NESTED_EXPRESSION",
	CodeAssumptionFalse:                       "TLC_ASSUMPTION_FALSE",
	CodeAssumptionEvaluationError:             "TLC_ASSUMPTION_EVALUATION_ERROR",
	CodeStateNotCompletelySpecifiedInitial:    "TLC_STATE_NOT_COMPLETELY_SPECIFIED_INITIAL",
	CodeInvariantViolatedInitial:              "TLC_INVARIANT_VIOLATED_INITIAL",
	CodePropertyViolatedInitial:               "TLC_PROPERTY_VIOLATED_INITIAL",
	CodeStateNotCompletelySpecifiedNext:       "TLC_STATE_NOT_COMPLETELY_SPECIFIED_NEXT",
	CodeInvariantViolatedBehavior:             "TLC_INVARIANT_VIOLATED_BEHAVIOR",
	CodeInvariantEvaluationFailed:             "TLC_INVARIANT_EVALUATION_FAILED",
	CodeActionPropertyViolatedBehavior:        "TLC_ACTION_PROPERTY_VIOLATED_BEHAVIOR",
	CodeActionPropertyEvaluationFailed:        "TLC_ACTION_PROPERTY_EVALUATION_FAILED",
	CodeDeadlockReached:                       "TLC_DEADLOCK_REACHED",
	CodeStatesAndNoNextAction:                 "TLC_STATES_AND_NO_NEXT_ACTION",
	CodeTemporalPropertyViolated:              "TLC_TEMPORAL_PROPERTY_VIOLATED",
	CodeFailedToRecoverNext:                   "TLC_FAILED_TO_RECOVER_NEXT",
	CodeNoStatesSatisfyingInit:                "TLC_NO_STATES_SATISFYING_INIT",
	CodeErrorState:                            "TLC_ERROR_STATE",
	CodeBehaviorUpToThisPoint:                 "TLC_BEHAVIOR_UP_TO_THIS_POINT",
	CodeBackToState:                           "TLC_BACK_TO_STATE",
	CodeFailedToRecoverInit:                   "TLC_FAILED_TO_RECOVER_INIT",
	CodeBug:                                   "TLC_BUG",
	CodeValueAssertFailed:                     "TLC_VALUE_ASSERT_FAILED",
	CodeInvariantViolatedLevel:                "TLC_INVARIANT_VIOLATED_LEVEL",
	CodeFingerprintException:                  "TLC_FINGERPRINT_EXCEPTION",
	CodeStateNotCompletelySpecifiedLive:       "TLC_STATE_NOT_COMPLETELY_SPECIFIED_LIVE",
	CodeInvariantConstantLevel:                "TLC_INVARIANT_CONSTANT_LEVEL",
	CodeModuleValueJavaMethodOverride:         "TLC_MODULE_VALUE_JAVA_METHOD_OVERRIDE",
	CodeModuleCompareValue:                    "TLC_MODULE_COMPARE_VALUE",
	CodeFeatureUnsupported:                    "TLC_FEATURE_UNSUPPORTED",
	CodeModuleValueJavaMethodOverrideLoaded:   "TLC_MODULE_VALUE_JAVA_METHOD_OVERRIDE_LOADED",
	CodeModuleArgumentError:                   "TLC_MODULE_ARGUMENT_ERROR",
	CodeArgumentMismatch:                      "TLC_ARGUMENT_MISMATCH",
	CodeParsingFailed2:                        "TLC_PARSING_FAILED2",
	CodeTooManyPossibleStates:                 "TLC_TOO_MNY_POSSIBLE_STATES",
	CodeModuleOverflow:                        "TLC_MODULE_OVERFLOW",
	CodeModuleDivisionByZero:                  "TLC_MODULE_DIVISION_BY_ZERO",
	CodeModuleArgumentNotInDomain:             "TLC_MODULE_ARGUMENT_NOT_IN_DOMAIN",
	CodeModuleApplyEmptySeq:                   "TLC_MODULE_APPLY_EMPTY_SEQ",
	CodeStarting:                              "TLC_STARTING",
	CodeFinished:                              "TLC_FINISHED",
	CodeModeMC:                                "TLC_MODE_MC",
	CodeModeSimulation:                        "TLC_MODE_SIMU",
	CodeComputingInit:                         "TLC_COMPUTING_INIT",
	CodeInitGenerated1:                        "TLC_INIT_GENERATED1",
	CodeInitGenerated2:                        "TLC_INIT_GENERATED2",
	CodeCheckingTemporalProps:                 "TLC_CHECKING_TEMPORAL_PROPS",
	CodeSuccess:                               "TLC_SUCCESS",
	CodeSearchDepth:                           "TLC_SEARCH_DEPTH",
	CodeCheckpointStart:                       "TLC_CHECKPOINT_START",
	CodeCheckpointEnd:                         "TLC_CHECKPOINT_END",
	CodeCheckpointRecoverStart:                "TLC_CHECKPOINT_RECOVER_START",
	CodeCheckpointRecoverEnd:                  "TLC_CHECKPOINT_RECOVER_END",
	CodeStats:                                 "TLC_STATS",
	CodeProgressStats:                         "TLC_PROGRESS_STATS",
	CodeCoverageStart:                         "TLC_COVERAGE_START",
	CodeCoverageEnd:                           "TLC_COVERAGE_END",
	CodeStatsDFID:                             "TLC_STATS_DFID",
	CodeProgressStatsDFID:                     "TLC_PROGRESS_STATS_DFID",
	CodeInitGenerated3:                        "TLC_INIT_GENERATED3",
	CodeInitGenerated4:                        "TLC_INIT_GENERATED4",
	CodeProgressSimulation:                    "TLC_PROGRESS_SIMU",
	CodeStatsSimulation:                       "TLC_STATS_SIMU",
	CodeFPCompleted:                           "TLC_FP_COMPLETED",
	CodeLiveImplied:                           "TLC_LIVE_IMPLIED",
	CodeStatePrint1:                           "TLC_STATE_PRINT1",
	CodeStatePrint2:                           "TLC_STATE_PRINT2",
	CodeStatePrint3:                           "TLC_STATE_PRINT3",
	CodeSANYEnd:                               "TLC_SANY_END",
	CodeSANYStart:                             "TLC_SANY_START",
	CodeConfigValueNotAssignedToConstantParam: "TLC_CONFIG_VALUE_NOT_ASSIGNED_TO_CONSTANT_PARAM",
	CodeConfigRHSIDAppearedAfterLHSID:         "TLC_CONFIG_RHS_ID_APPEARED_AFTER_LHS_ID",
	CodeConfigWrongSubstitution:               "TLC_CONFIG_WRONG_SUBSTITUTION",
	CodeConfigWrongSubstitutionNumberOfArgs:   "TLC_CONFIG_WRONG_SUBSTITUTION_NUMBER_OF_ARGS",
	CodeConfigIDDoesNotAppearInSpec:           "TLC_CONFIG_ID_DOES_NOT_APPEAR_IN_SPEC",
	CodeConfigNotBothSpecAndInit:              "TLC_CONFIG_NOT_BOTH_SPEC_AND_INIT",
	CodeConfigIDRequiresNoArg:                 "TLC_CONFIG_ID_REQUIRES_NO_ARG",
	CodeConfigSpecifiedNotDefined:             "TLC_CONFIG_SPECIFIED_NOT_DEFINED",
	CodeConfigIDHasValue:                      "TLC_CONFIG_ID_HAS_VALUE",
	CodeConfigMissingInit:                     "TLC_CONFIG_MISSING_INIT",
	CodeConfigMissingNext:                     "TLC_CONFIG_MISSING_NEXT",
	CodeConfigIDMustNotBeConstant:             "TLC_CONFIG_ID_MUST_NOT_BE_CONSTANT",
	CodeConfigOpNoArgs:                        "TLC_CONFIG_OP_NO_ARGS",
	CodeConfigOpNotInSpec:                     "TLC_CONFIG_OP_NOT_IN_SPEC",
	CodeConfigOpIsEqual:                       "TLC_CONFIG_OP_IS_EQUAL",
	CodeConfigSpecIsTrivial:                   "TLC_CONFIG_SPEC_IS_TRIVIAL",
	CodeCantHandleSubscript:                   "TLC_CANT_HANDLE_SUBSCRIPT",
	CodeCantHandleConjunct:                    "TLC_CANT_HANDLE_CONJUNCT",
	CodeCantHandleTooManyNextStateRels:        "TLC_CANT_HANDLE_TOO_MANY_NEXT_STATE_RELS",
	CodeConfigPropertyNotCorrectlyDefined:     "TLC_CONFIG_PROPERTY_NOT_CORRECTLY_DEFINED",
	CodeConfigOpArityInconsistent:             "TLC_CONFIG_OP_ARITY_INCONSISTENT",
	CodeConfigNoStateType:                     "TLC_CONFIG_NO_STATE_TYPE",
	CodeCantHandleRealNumbers:                 "TLC_CANT_HANDLE_REAL_NUMBERS",
	CodeNoModules:                             "TLC_NO_MODULES",
	CodeLiveFormulaTautology:                  "TLC_LIVE_FORMULA_TAUTOLOGY",
	CodeConfigNoSpecButProperty:               "TLC_CONFIG_NO_SPEC_BUT_PROPERTY",
	CodeConfigNoFairnessButLiveProperty:       "TLC_CONFIG_NO_FAIRNESS_BUT_LIVE_PROPERTY",
	CodeVersion:                               "TLC_VERSION",
	CodeCounterExample:                        "TLC_COUNTER_EXAMPLE",
	CodeIntegerTooBig:                         "TLC_INTEGER_TOO_BIG",
	CodeCheckingTemporalPropsEnd:              "TLC_CHECKING_TEMPORAL_PROPS_END",
	CodeStateGraphOutdegree:                   "TLC_STATE_GRAPH_OUTDEGREE",
	CodeComputingInitProgress:                 "TLC_COMPUTING_INIT_PROGRESS",
	CodeModeMCDFS:                             "TLC_MODE_MC_DFS",
	CodeConfigPropertyActionLevel:             "TLC_CONFIG_PROPERTY_ACTION_LEVEL",
	CodeConfigPropertyActionLevelSquareASubV:  "TLC_CONFIG_PROPERTY_ACTION_LEVEL_SQUARE_A_SUB_V",
	CodeConfigPropertyActionLevelAngleASubV:   "TLC_CONFIG_PROPERTY_ACTION_LEVEL_ANGLE_A_SUB_V",
	CodeConfigUndefinedOrNoOperator:           "TLC_CONFIG_UNDEFINED_OR_NO_OPERATOR",
	CodeConfigSubstitutionNonConstant:         "TLC_CONFIG_SUBSTITUTION_NON_CONSTANT",
	CodeTraceTooLong:                          "TLC_TRACE_TOO_LONG",
	CodePostconditionFalse:                    "TLC_POSTCONDITION_FALSE",
	CodePostconditionEvaluationError:          "TLC_POSTCONDITION_EVALUATION_ERROR",
	CodeTESpecGenerationComplete:              "TLC_TE_SPEC_GENERATION_COMPLETE",
	CodeTESpecGenerationError:                 "TLC_TE_SPEC_GENERATION_ERROR",
	CodeParsingFailed:                         "TLC_PARSING_FAILED",
	CodeCfgErrorReadingFile:                   "CFG_ERROR_READING_FILE",
	CodeCfgGeneral:                            "CFG_GENERAL",
	CodeCfgMissingID:                          "CFG_MISSING_ID",
	CodeCfgTwiceKeyword:                       "CFG_TWICE_KEYWORD",
	CodeCfgExpectID:                           "CFG_EXPECT_ID",
	CodeCfgExpectedSymbol:                     "CFG_EXPECTED_SYMBOL",
	CodeDistributedServerRunning:              "TLC_DISTRIBUTED_SERVER_RUNNING",
	CodeDistributedWorkerRegistered:           "TLC_DISTRIBUTED_WORKER_REGISTERED",
	CodeDistributedWorkerLeft:                 "TLC_DISTRIBUTED_WORKER_DEREGISTERED",
	CodeDistributedWorkerStats:                "TLC_DISTRIBUTED_WORKER_STATS",
	CodeDistributedWorkerLost:                 "TLC_DISTRIBUTED_WORKER_LOST",
	CodeModuleOverrideStdout:                  "TLC_MODULE_OVERRIDE_STDOUT",
}

// String returns the name TLC's EC class gives the code, such as
// "TLC_INVARIANT_VIOLATED_BEHAVIOR", or "Code(n)" for an unknown code.
func (c Code) String() string {
	if n, ok := codeNames[c]; ok {
		return n
	}
	return fmt.Sprintf("Code(%d)", int(c))
}
