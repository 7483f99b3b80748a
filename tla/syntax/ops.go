package syntax

// opInfo is an operator's precedence range (Specifying Systems, section
// 15.2.1) and associativity. Two operators whose ranges overlap need
// parentheses, unless they are the same left-associative operator.
type opInfo struct {
	canon  string
	lo, hi int
	left   bool
}

// synonyms maps every alternative spelling to the one Canon returns.
var synonyms = map[string]string{
	"\\union": "\\cup", "\\intersect": "\\cap",
	"\\lnot": "~", "\\neg": "~",
	"\\equiv": "<=>",
	"/=":      "#",
	"=<":      "<=", "\\leq": "<=",
	"\\geq":   ">=",
	"\\circ":  "\\o",
	"\\times": "\\X",
	"\\land":  "/\\", "\\lor": "\\/",
	"\\oplus": "(+)", "\\ominus": "(-)", "\\odot": "(.)",
	"\\oslash": "(/)", "\\otimes": "(\\X)",
}

// Canon returns the one spelling of an operator that the tree uses for
// all its synonyms ("\\union" -> "\\cup"); other names are returned as
// they are.
func Canon(op string) string {
	if c, ok := synonyms[op]; ok {
		return c
	}
	return op
}

func infix(lo, hi int, left bool, names ...string) {
	for _, n := range names {
		infixOps[n] = opInfo{canon: Canon(n), lo: lo, hi: hi, left: left}
	}
}

// infixOps are the infix operators by spelling; prefixOps and postfixOps
// the others.
var infixOps = map[string]opInfo{}

var prefixOps = map[string]opInfo{
	"~": {"~", 4, 4, false}, "\\lnot": {"~", 4, 4, false}, "\\neg": {"~", 4, 4, false},
	"[]": {"[]", 4, 15, false}, "<>": {"<>", 4, 15, false},
	"ENABLED": {"ENABLED", 4, 15, false}, "UNCHANGED": {"UNCHANGED", 4, 15, false},
	"DOMAIN": {"DOMAIN", 9, 9, false}, "SUBSET": {"SUBSET", 8, 8, false},
	"UNION": {"UNION", 8, 8, false}, "-": {"-.", 12, 12, false},
}

var postfixOps = map[string]bool{"^+": true, "^*": true, "^#": true}

// nary are the operators whose unparenthesised chains become one node.
var nary = map[string]bool{"/\\": true, "\\/": true, "\\X": true}

func init() {
	infix(1, 1, false, "=>")
	infix(2, 2, false, "<=>", "\\equiv", "~>", "-+->")
	infix(3, 3, true, "/\\", "\\/", "\\land", "\\lor")
	infix(5, 5, false, "=", "#", "/=", "<", ">", "<=", "=<", "\\leq", ">=", "\\geq",
		"\\in", "\\notin", "\\subseteq", "\\subset", "\\supseteq", "\\supset",
		"-|", "::=", ":=", "=|", "?", "|-", "|=", "\\approx", "\\asymp",
		"\\cong", "\\doteq", "\\gg", "\\ll", "\\prec", "\\preceq", "\\propto",
		"\\sim", "\\simeq", "\\sqsubset", "\\sqsubseteq", "\\sqsupset",
		"\\sqsupseteq", "\\succ", "\\succeq")
	infix(5, 14, true, "\\cdot")
	infix(6, 6, true, "@@")
	infix(7, 7, false, ":>", "<:")
	infix(8, 8, false, "\\")
	infix(8, 8, true, "\\cup", "\\union", "\\cap", "\\intersect")
	infix(9, 9, false, "..", "...")
	infix(9, 13, false, "!!", "##", "$", "$$")
	infix(9, 13, true, "??", "\\sqcap", "\\sqcup", "\\uplus")
	infix(9, 14, false, "\\wr")
	infix(10, 10, true, "+", "++", "(+)", "\\oplus")
	infix(10, 11, false, "%", "%%")
	infix(10, 11, true, "|", "||")
	// \X is not associative, but a chain is one n-ary product.
	infix(10, 13, true, "\\X", "\\times")
	infix(11, 11, true, "-", "--", "(-)", "\\ominus")
	infix(13, 13, false, "/", "//", "(/)", "\\oslash", "\\div")
	infix(13, 13, true, "*", "**", "&", "&&", "(.)", "\\odot", "(\\X)", "\\otimes",
		"\\o", "\\circ", "\\bigcirc", "\\bullet", "\\star")
	infix(14, 14, false, "^", "^^")
}
