package copier

// Tests may name the vocabulary: they assert the outcomes shown.
var want = "Liveness"
