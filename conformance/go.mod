module github.com/retrylab/retrylab/conformance

go 1.26.0

replace github.com/retrylab/retrylab => ../

require (
	github.com/aws/aws-sdk-go-v2 v1.48.0
	github.com/aws/smithy-go v1.28.9
	github.com/cenkalti/backoff/v4 v4.3.0
	github.com/cenkalti/backoff/v5 v5.0.3
	github.com/hashicorp/go-retryablehttp v0.7.8
	github.com/retrylab/retrylab v0.0.0
)

require github.com/hashicorp/go-cleanhttp v0.5.2 // indirect
