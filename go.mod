module github.com/resumecontract/resumecheck

go 1.26
