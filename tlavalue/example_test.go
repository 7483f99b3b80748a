package tlavalue_test

import (
	"encoding/json"
	"fmt"

	"github.com/resumecontract/resumecheck/tlavalue"
)

func ExampleParse() {
	// A value as TLC prints it in an error trace, wrapped over lines.
	v, err := tlavalue.Parse(`( a :>
      << <<a, 1>>,
         <<a, 2>> >> @@
  b :> <<>> )`)
	if err != nil {
		panic(err)
	}
	fmt.Println(v)
	fmt.Println(v.Kind())

	_, err = tlavalue.Parse("{1, 2")
	fmt.Println(err)
	// Output:
	// (a :> <<<<a, 1>>, <<a, 2>>>> @@ b :> <<>>)
	// function
	// line 1, col 6: expected '}', found end of input
}

func ExampleParseState() {
	s, err := tlavalue.ParseState("/\\ big = 4\n/\\ small = 3\n")
	if err != nil {
		panic(err)
	}
	big, _ := s.Get("big")
	fmt.Println(big, s.Names())
	// Output: 4 [big small]
}

func ExampleToITF() {
	v := tlavalue.Record(
		tlavalue.Field{Name: "log", Value: tlavalue.Tuple(tlavalue.Int(1))},
		tlavalue.Field{Name: "seen", Value: tlavalue.Set(tlavalue.Str("x"))})
	b, _ := json.Marshal(tlavalue.ToITF(v))
	fmt.Println(string(b))
	back, _ := tlavalue.FromITF(b)
	fmt.Println(back)
	// Output:
	// {"log":[{"#bigint":"1"}],"seen":{"#set":["x"]}}
	// [log |-> <<1>>, seen |-> {"x"}]
}

func ExampleFromCheckerJSON() {
	v, _ := tlavalue.FromCheckerJSON([]byte(`{"__fn": [[{"__model": "M"}, 7], [{"__model": "N"}, 8]]}`))
	fmt.Println(v)
	// Output: (M :> 7 @@ N :> 8)
}
