package notify

import (
	"context"
	"errors"
	"strings"

	"github.com/cdevd/cdevd/rpc"
)

// Service is what the notify/* methods do, in wire types: the server
// decodes and calls it.
type Service struct {
	Notifier *Notifier
	Subs     *Subscriptions
	Keys     VAPID
}

// Test sends a test through every sink, one attempt each.
func (s *Service) Test(ctx context.Context) rpc.NotifyTestResult {
	var console string
	if s.Notifier.cfg.ConsoleURL != nil {
		console = s.Notifier.cfg.ConsoleURL()
	}
	res := rpc.NotifyTestResult{Sinks: []rpc.NotifySinkResult{}}
	for _, r := range Test(ctx, s.Notifier.cfg.Sinks, console) {
		res.Sinks = append(res.Sinks, rpc.NotifySinkResult{Sink: r.Sink, Type: r.Type, OK: r.OK, Error: r.Error, MS: r.Millis})
	}
	return res
}

// VAPIDKey is the public key browsers subscribe with.
func (s *Service) VAPIDKey() rpc.NotifyVAPIDKeyResult {
	return rpc.NotifyVAPIDKeyResult{PublicKey: s.Keys.Public}
}

// Subscribe registers a browser's subscription.
// Subscribe registers a browser's subscription for owner, the paired
// device whose connection asked (revoking it removes the subscription).
func (s *Service) Subscribe(p rpc.NotifySubscribeParams, owner string) (rpc.NotifySubscription, error) {
	var kinds []Kind
	if p.Kinds != nil {
		kinds = toKinds(p.Kinds)
	}
	if len(p.Device) > 64 {
		return rpc.NotifySubscription{}, rpc.InvalidParams("device", "longer than 64 characters")
	}
	sub, err := s.Subs.Add(Subscription{Endpoint: p.Endpoint, P256dh: p.P256dh, Auth: p.Auth, Kinds: kinds, Device: p.Device,
		Owner: owner})
	if err != nil {
		return rpc.NotifySubscription{}, paramsError(err)
	}
	return wire(sub), nil
}

// Caller is who asks about subscriptions: a device that may act (the
// owner, a control device) manages every one; any other sees and changes
// only those it registered itself.
type Caller struct {
	DeviceID string
	Control  bool
}

func (c Caller) may(sub Subscription) bool { return c.Control || sub.Owner == c.DeviceID }

// mine refuses, as unknown, an id that is not by's to manage.
func (s *Service) mine(id string, by Caller) error {
	for _, sub := range s.Subs.List() {
		if sub.ID == id && by.may(sub) {
			return nil
		}
	}
	return ErrNoSubscription
}

// Subscriptions lists the subscriptions by may manage.
func (s *Service) Subscriptions(by Caller) rpc.NotifySubscriptionsResult {
	res := rpc.NotifySubscriptionsResult{Subscriptions: []rpc.NotifySubscription{}}
	for _, sub := range s.Subs.List() {
		if by.may(sub) {
			res.Subscriptions = append(res.Subscriptions, wire(sub))
		}
	}
	return res
}

// Update changes the kinds a subscription wants.
func (s *Service) Update(p rpc.NotifyUpdateParams, by Caller) (rpc.NotifySubscription, error) {
	if err := s.mine(p.ID, by); err != nil {
		return rpc.NotifySubscription{}, paramsError(err)
	}
	sub, err := s.Subs.SetKinds(p.ID, toKinds(p.Kinds))
	if err != nil {
		return rpc.NotifySubscription{}, paramsError(err)
	}
	return wire(sub), nil
}

// Unsubscribe removes a subscription; an unknown id is an error (a device
// revoked elsewhere learns it is gone).
func (s *Service) Unsubscribe(p rpc.NotifyUnsubscribeParams, by Caller) (rpc.SuccessResult, error) {
	if err := s.mine(p.ID, by); err != nil {
		return rpc.SuccessResult{}, paramsError(err)
	}
	removed, err := s.Subs.Remove(p.ID)
	if err != nil {
		return rpc.SuccessResult{}, rpc.AsError(err)
	}
	if !removed {
		return rpc.SuccessResult{}, rpc.InvalidParams("id", ErrNoSubscription.Error())
	}
	return rpc.SuccessResult{Success: true}, nil
}

func toKinds(ks []string) []Kind {
	out := make([]Kind, len(ks))
	for i, k := range ks {
		out[i] = Kind(k)
	}
	return out
}

func wire(s Subscription) rpc.NotifySubscription {
	kinds := make([]string, len(s.Kinds))
	for i, k := range s.Kinds {
		kinds[i] = string(k)
	}
	return rpc.NotifySubscription{ID: s.ID, Device: s.Device, Kinds: kinds, Created: rpc.FormatTime(s.Created)}
}

// paramsError makes a subscription's refusal an invalid-params error
// naming the field ("endpoint: …" names endpoint).
func paramsError(err error) error {
	if errors.Is(err, ErrNoSubscription) {
		return rpc.InvalidParams("id", err.Error())
	}
	if field, reason, ok := strings.Cut(err.Error(), ": "); ok && !strings.Contains(field, " ") {
		return rpc.InvalidParams(field, reason)
	}
	return rpc.AsError(err)
}
