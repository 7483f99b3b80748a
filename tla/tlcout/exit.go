package tlcout

import "fmt"

// Severity is a message's class, the number after the colon in
// "@!@!@STARTMSG code:class @!@!@" (TLC's MP.NONE ... MP.STATE).
type Severity int

// The message classes of TLC's tlc2.output.MP.
const (
	SeverityNone    Severity = 0 // ordinary output
	SeverityError   Severity = 1
	SeverityBug     Severity = 2 // an internal error of TLC
	SeverityWarning Severity = 3
	SeverityState   Severity = 4 // a state of an error trace
)

func (s Severity) String() string {
	switch s {
	case SeverityNone:
		return "none"
	case SeverityError:
		return "error"
	case SeverityBug:
		return "bug"
	case SeverityWarning:
		return "warning"
	case SeverityState:
		return "state"
	}
	return fmt.Sprintf("Severity(%d)", int(s))
}

// ExitStatus is the exit status of a TLC process (TLC's EC.ExitStatus).
type ExitStatus int

// TLC's exit statuses. Violations are 10-14, failures to evaluate the spec
// 75-77, errors 150-153, and anything else (255 in particular) means TLC
// crashed or met an error without a status of its own.
const (
	ExitSuccess                 ExitStatus = 0
	ExitViolationAssumption     ExitStatus = 10 // an ASSUME (or postcondition) is false or failed to evaluate
	ExitViolationDeadlock       ExitStatus = 11
	ExitViolationSafety         ExitStatus = 12 // an invariant is violated
	ExitViolationLiveness       ExitStatus = 13 // a temporal or action property is violated
	ExitViolationAssert         ExitStatus = 14 // Assert(FALSE, ...) was evaluated
	ExitFailureSpecEval         ExitStatus = 75
	ExitFailureSafetyEval       ExitStatus = 76
	ExitFailureLivenessEval     ExitStatus = 77
	ExitErrorSpecParse          ExitStatus = 150
	ExitErrorConfigParse        ExitStatus = 151
	ExitErrorStatespaceTooLarge ExitStatus = 152
	ExitErrorSystem             ExitStatus = 153
	ExitError                   ExitStatus = 255
)

var exitMeanings = map[ExitStatus]string{
	ExitSuccess:                 "success: no error found",
	ExitViolationAssumption:     "violation: an assumption is false",
	ExitViolationDeadlock:       "violation: deadlock reached",
	ExitViolationSafety:         "violation: an invariant is violated",
	ExitViolationLiveness:       "violation: a temporal or action property is violated",
	ExitViolationAssert:         "violation: an Assert failed",
	ExitFailureSpecEval:         "failure: the spec could not be evaluated",
	ExitFailureSafetyEval:       "failure: an invariant could not be evaluated",
	ExitFailureLivenessEval:     "failure: a temporal property could not be evaluated",
	ExitErrorSpecParse:          "error: the spec could not be parsed",
	ExitErrorConfigParse:        "error: the configuration is wrong",
	ExitErrorStatespaceTooLarge: "error: the state space is too large",
	ExitErrorSystem:             "error: a system error (disk, memory) stopped TLC",
	ExitError:                   "error: TLC failed",
}

// String says what the status means, e.g. "violation: deadlock reached".
func (s ExitStatus) String() string {
	if m, ok := exitMeanings[s]; ok {
		return m
	}
	return fmt.Sprintf("unknown exit status %d: TLC crashed", int(s))
}

// Meaning returns what a TLC process exit code means.
func Meaning(code int) string { return ExitStatus(code).String() }

// IsViolation reports whether the status says a property does not hold.
func (s ExitStatus) IsViolation() bool { return 10 <= s && s <= 14 }

// Crashed reports whether the status is none that TLC gives on purpose, so
// that the output may be cut short. TLC itself counts 152 and 153 here too.
func (s ExitStatus) Crashed() bool {
	switch s {
	case ExitSuccess, ExitViolationAssumption, ExitViolationDeadlock, ExitViolationSafety,
		ExitViolationLiveness, ExitViolationAssert, ExitFailureSpecEval, ExitFailureSafetyEval,
		ExitFailureLivenessEval, ExitErrorSpecParse, ExitErrorConfigParse:
		return false
	}
	return true
}

// ExitStatusFor returns the exit status TLC gives when a run ends with the
// error of this code, following EC.ExitStatus.errorConstantToExitStatus;
// ExitError for codes that have none of their own.
func ExitStatusFor(c Code) ExitStatus {
	switch c {
	case Untagged:
		return ExitSuccess
	case CodeLiveFormulaTautology:
		return ExitFailureLivenessEval
	case CodeStateNotCompletelySpecifiedNext, CodeStatesAndNoNextAction, CodeNestedExpression, CodeFingerprintException:
		return ExitFailureSpecEval
	case CodeInvariantEvaluationFailed, CodeInvariantViolatedLevel:
		return ExitFailureSafetyEval
	case CodeInvariantViolatedInitial, CodeInvariantViolatedBehavior:
		return ExitViolationSafety
	case CodeActionPropertyViolatedBehavior, CodeActionPropertyEvaluationFailed, CodeTemporalPropertyViolated, CodePropertyViolatedInitial:
		return ExitViolationLiveness
	case CodeDeadlockReached:
		return ExitViolationDeadlock
	case CodeAssumptionFalse, CodeAssumptionEvaluationError, CodePostconditionFalse, CodePostconditionEvaluationError:
		return ExitViolationAssumption
	case CodeValueAssertFailed:
		return ExitViolationAssert
	case CodeConfigValueNotAssignedToConstantParam, CodeConfigRHSIDAppearedAfterLHSID, CodeConfigWrongSubstitution,
		CodeConfigWrongSubstitutionNumberOfArgs, CodeConfigUndefinedOrNoOperator, CodeConfigSubstitutionNonConstant,
		CodeConfigIDDoesNotAppearInSpec, CodeConfigNotBothSpecAndInit, CodeConfigIDRequiresNoArg, CodeConfigSpecifiedNotDefined,
		CodeConfigIDHasValue, CodeConfigMissingInit, CodeConfigMissingNext, CodeConfigIDMustNotBeConstant, CodeConfigOpNoArgs,
		CodeConfigOpNotInSpec, CodeConfigOpIsEqual, CodeConfigSpecIsTrivial, CodeCantHandleSubscript, CodeCantHandleConjunct,
		CodeCantHandleTooManyNextStateRels, CodeConfigPropertyNotCorrectlyDefined, CodeConfigPropertyActionLevel,
		CodeConfigPropertyActionLevelSquareASubV, CodeConfigPropertyActionLevelAngleASubV, CodeConfigOpArityInconsistent,
		CodeConfigNoStateType, CodeCantHandleRealNumbers, CodeNoModules:
		return ExitErrorConfigParse
	case CodeParsingFailed, CodeParsingFailed2:
		return ExitErrorSpecParse
	}
	return ExitError
}

// hasExitStatus reports whether ExitStatusFor gives c a status of its own.
func hasExitStatus(c Code) bool { return ExitStatusFor(c) != ExitError }
