package tracecheck

// ResumeEvents is resumeEvents, for the tests of package tracecheck_test.
var ResumeEvents = resumeEvents
