package contracttests

import (
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cdevd/cdevd/daemon"
	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/rpc"
)

// The notify/* methods over the wire: the VAPID key a browser subscribes
// with, a subscription registered, listed, changed and removed, notify/test
// through every sink (a webhook and the subscribed browser), and the bad
// input each refuses.
func TestNotifyMethods(t *testing.T) {
	inProcessOnly(t)
	hook, posts := webhookReceiver(t)
	pushes := make(chan struct{}, 10)
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pushes <- struct{}{}
		w.WriteHeader(http.StatusCreated)
	}))
	t.Cleanup(service.Close)
	home := t.TempDir()
	d := StartDaemon(t, daemon.Config{Home: home, Notify: daemon.Notify{Sinks: []notify.Sink{
		notify.NewWebhook(notify.SinkConfig{Name: "hook", Kinds: notify.Kinds}, hook.URL, hookSecret)}}})
	ctx := testCtx(t)
	c, _ := Connect(t, ctx, d.URL(), d.Token())

	var key rpc.NotifyVAPIDKeyResult
	c.MustCall(ctx, rpc.MethodNotifyVAPIDKey, nil, &key)
	stored, err := notify.LoadVAPID(home)
	if err != nil || stored.Public != key.PublicKey {
		t.Fatalf("notify/vapidKey %q, stored %v (%v)", key.PublicKey, stored, err)
	}
	if info, err := os.Stat(filepath.Join(home, notify.VAPIDFileName)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("VAPID key file: %v, %v", info, err)
	}

	browser, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p256dh := base64.RawURLEncoding.EncodeToString(browser.PublicKey().Bytes())
	auth := base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef"))
	var sub rpc.NotifySubscription
	c.MustCall(ctx, rpc.MethodNotifySubscribe, rpc.NotifySubscribeParams{Endpoint: service.URL + "/push/1", P256dh: p256dh,
		Auth: auth, Device: "test browser"}, &sub)
	if sub.ID == "" || sub.Device != "test browser" || !slices.Equal(sub.Kinds, []string{"permission", "question", "turn_completed", "error", "stall", "limit"}) {
		t.Errorf("notify/subscribe = %+v", sub)
	}
	var list rpc.NotifySubscriptionsResult
	c.MustCall(ctx, rpc.MethodNotifySubscriptions, nil, &list)
	if len(list.Subscriptions) != 1 || list.Subscriptions[0].ID != sub.ID {
		t.Errorf("notify/subscriptions = %+v", list)
	}
	c.MustCall(ctx, rpc.MethodNotifyUpdate, rpc.NotifyUpdateParams{ID: sub.ID, Kinds: []string{"question"}}, &sub)
	if !slices.Equal(sub.Kinds, []string{"question"}) {
		t.Errorf("notify/update = %+v", sub)
	}

	var tested rpc.NotifyTestResult
	c.MustCall(ctx, rpc.MethodNotifyTest, nil, &tested)
	if len(tested.Sinks) != 2 || tested.Sinks[0].Sink != "hook" || !tested.Sinks[0].OK ||
		tested.Sinks[1].Type != "webpush" || !tested.Sinks[1].OK {
		t.Errorf("notify/test = %+v", tested)
	}
	if p := <-posts; !p.signed || p.note.Kind != notify.KindTest {
		t.Errorf("the webhook got %+v", p)
	}
	<-pushes

	// Bad input: each refused with the field named, the server intact.
	bad := []struct {
		method string
		params any
		field  string
	}{
		{rpc.MethodNotifySubscribe, rpc.NotifySubscribeParams{Endpoint: "http://push.example.com/x", P256dh: p256dh, Auth: auth}, "endpoint"},
		{rpc.MethodNotifySubscribe, rpc.NotifySubscribeParams{Endpoint: "https://push.example.com/x", P256dh: "AAAA", Auth: auth}, "p256dh"},
		{rpc.MethodNotifySubscribe, rpc.NotifySubscribeParams{Endpoint: "https://push.example.com/x", P256dh: p256dh, Auth: auth,
			Kinds: []string{"everything"}}, "kinds"},
		{rpc.MethodNotifyUpdate, rpc.NotifyUpdateParams{ID: sub.ID, Kinds: []string{}}, "kinds"},
		{rpc.MethodNotifyUpdate, rpc.NotifyUpdateParams{ID: "revoked", Kinds: []string{"question"}}, "id"},
	}
	for _, b := range bad {
		_, rerr := c.Call(ctx, b.method, b.params)
		if rerr == nil || rerr.Code != rpc.CodeInvalidParams {
			t.Errorf("%s %+v: %v, want invalid params", b.method, b.params, rerr)
			continue
		}
		var data struct{ Field string }
		raw, _ := json.Marshal(rerr.Data)
		if json.Unmarshal(raw, &data) != nil || data.Field != b.field {
			t.Errorf("%s: error data %s, want field %s", b.method, raw, b.field)
		}
	}
	var ok rpc.SuccessResult
	c.MustCall(ctx, rpc.MethodNotifyUnsubscribe, rpc.NotifyUnsubscribeParams{ID: sub.ID}, &ok)
	// A device revoked elsewhere: its id is gone.
	if _, rerr := c.Call(ctx, rpc.MethodNotifyUnsubscribe, rpc.NotifyUnsubscribeParams{ID: sub.ID}); rerr == nil || rerr.Code != rpc.CodeInvalidParams {
		t.Errorf("unsubscribing twice: %v", rerr)
	}
	c.MustCall(ctx, rpc.MethodNotifySubscriptions, nil, &list)
	if !ok.Success || len(list.Subscriptions) != 0 {
		t.Errorf("after unsubscribe: %+v, %+v", ok, list)
	}
}

// A paired device's browser subscribes to push; a watch device manages
// only its own subscription, and once a device is revoked its
// subscription is gone while another device's stays.
func TestRevokedDeviceLosesItsPushSubscription(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	base := "http://" + e.d.Addr()
	owner := e.connect(ctx)
	subscribe := func(c *Client, endpoint string) rpc.NotifySubscription {
		t.Helper()
		browser, err := ecdh.P256().GenerateKey(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		var sub rpc.NotifySubscription
		c.MustCall(ctx, rpc.MethodNotifySubscribe, rpc.NotifySubscribeParams{Endpoint: endpoint,
			P256dh: base64.RawURLEncoding.EncodeToString(browser.PublicKey().Bytes()),
			Auth:   base64.RawURLEncoding.EncodeToString([]byte("0123456789abcdef"))}, &sub)
		return sub
	}
	laptop, _ := Connect(t, ctx, e.url, pairDevice(t, ctx, base, e.token, "laptop", "control"))
	phone, _ := Connect(t, ctx, e.url, pairDevice(t, ctx, base, e.token, "old phone", "watch"))
	kept := subscribe(laptop, "https://push.example.com/laptop")
	gone := subscribe(phone, "https://push.example.com/phone")

	// A watch device sees and manages its own subscription only.
	var own rpc.NotifySubscriptionsResult
	phone.MustCall(ctx, rpc.MethodNotifySubscriptions, nil, &own)
	if len(own.Subscriptions) != 1 || own.Subscriptions[0].ID != gone.ID {
		t.Errorf("the watch device's subscriptions: %+v, want only its own %s", own.Subscriptions, gone.ID)
	}
	for _, call := range []struct {
		method string
		params any
	}{
		{rpc.MethodNotifyUnsubscribe, rpc.NotifyUnsubscribeParams{ID: kept.ID}},
		{rpc.MethodNotifyUpdate, rpc.NotifyUpdateParams{ID: kept.ID, Kinds: []string{"question"}}},
	} {
		if _, rerr := phone.Call(ctx, call.method, call.params); rerr == nil || rerr.Code != rpc.CodeInvalidParams {
			t.Errorf("%s of the laptop's subscription by the watch device: %v, want -32602", call.method, rerr)
		}
	}

	var devices rpc.DeviceListResult
	owner.MustCall(ctx, rpc.MethodDeviceList, rpc.EmptyParams{}, &devices)
	for _, dev := range devices.Devices {
		if dev.Name == "old phone" {
			owner.MustCall(ctx, rpc.MethodDeviceRevoke, rpc.DeviceIDParams{DeviceID: dev.ID}, nil)
		}
	}
	var list rpc.NotifySubscriptionsResult
	owner.MustCall(ctx, rpc.MethodNotifySubscriptions, nil, &list)
	var ids []string
	for _, s := range list.Subscriptions {
		ids = append(ids, s.ID)
	}
	if !slices.Contains(ids, kept.ID) || slices.Contains(ids, gone.ID) {
		t.Errorf("subscriptions after revoking the phone: %v; want the laptop's %s and not the phone's %s", ids, kept.ID, gone.ID)
	}
}
