package rpc

// NotifyTestResult says how each notification sink took a test.
type NotifyTestResult struct {
	Sinks []NotifySinkResult `json:"sinks"`
}

// NotifySinkResult is one sink's answer to a test notification.
type NotifySinkResult struct {
	Sink  string `json:"sink"`
	Type  string `json:"type" doc:"webhook, ntfy or webpush."`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty" doc:"Why it failed, when it did."`
	MS    int64  `json:"ms" doc:"How long the attempt took."`
}

// NotifyVAPIDKeyResult is the key browsers subscribe with.
type NotifyVAPIDKeyResult struct {
	PublicKey string `json:"public_key" doc:"cdevd's VAPID public key (P-256, uncompressed, base64url): PushManager.subscribe's applicationServerKey."`
}

// NotifySubscribeParams registers a browser's push subscription (the
// fields of PushSubscription.toJSON()).
type NotifySubscribeParams struct {
	Endpoint string   `json:"endpoint" doc:"The push service's https URL."`
	P256dh   string   `json:"p256dh" doc:"keys.p256dh: the browser's P-256 public key, base64url."`
	Auth     string   `json:"auth" doc:"keys.auth: the 16-byte authentication secret, base64url."`
	Kinds    []string `json:"kinds,omitempty" doc:"permission, question, turn_completed, error, stall, limit; omitted: all."`
	Device   string   `json:"device,omitempty" doc:"What to call this device in lists."`
}

// NotifySubscription is a registered push subscription (without its keys).
type NotifySubscription struct {
	ID      string   `json:"id" doc:"Derived from the endpoint: subscribing again replaces."`
	Device  string   `json:"device"`
	Kinds   []string `json:"kinds"`
	Created string   `json:"created" format:"date-time"`
}

// NotifySubscriptionsResult lists the push subscriptions.
type NotifySubscriptionsResult struct {
	Subscriptions []NotifySubscription `json:"subscriptions"`
}

// NotifyUpdateParams changes the kinds a subscription wants.
type NotifyUpdateParams struct {
	ID    string   `json:"id"`
	Kinds []string `json:"kinds"`
}

// NotifyUnsubscribeParams removes a subscription.
type NotifyUnsubscribeParams struct {
	ID string `json:"id"`
}
