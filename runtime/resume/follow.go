package resume

import "context"

// Follow runs a resumable operation from the client's side: it calls call
// with an empty token, then with each next token call returns, until a
// call returns none (the operation completed), fails, or ctx ends. call
// makes one request with resumeToken set to token (when not empty) and
// handles that page of the result — the callback per partial result — and
// returns the result's nextResumeToken. Per the proposal the request must
// not change between calls but for resumeToken.
func Follow(ctx context.Context, call func(ctx context.Context, token string) (next string, err error)) error {
	token := ""
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		next, err := call(ctx, token)
		if err != nil {
			return err
		}
		if next == "" {
			return nil
		}
		token = next
	}
}
