module github.com/retrylab/retrylab

go 1.26.0
