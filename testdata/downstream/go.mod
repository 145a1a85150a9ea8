module example.com/downstream

go 1.26.0
