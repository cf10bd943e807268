package client

// BreakForTest cuts c's connection under it, as a network failure would.
func BreakForTest(c *Client) {
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	_ = ws.UnderlyingConn().Close()
}

// HoldReconnect makes c's next reconnections wait for release.
func HoldReconnect(c *Client, release <-chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.beforeRestore = func() { <-release }
}
