package server

import (
	"context"

	"github.com/cdevd/cdevd/notify"
	"github.com/cdevd/cdevd/rpc"
)

// Notifications is what the notify/* methods need; notify.Service
// implements it. Without one (a server built for a test), they answer an
// internal error saying notifications are off.
type Notifications interface {
	Test(ctx context.Context) rpc.NotifyTestResult
	VAPIDKey() rpc.NotifyVAPIDKeyResult
	Subscribe(p rpc.NotifySubscribeParams, owner string) (rpc.NotifySubscription, error)
	Subscriptions(by notify.Caller) rpc.NotifySubscriptionsResult
	Update(p rpc.NotifyUpdateParams, by notify.Caller) (rpc.NotifySubscription, error)
	Unsubscribe(p rpc.NotifyUnsubscribeParams, by notify.Caller) (rpc.SuccessResult, error)
}

func (s *Server) notifyMethods() family {
	return family{
		rpc.MethodNotifyTest:          act(plain(s.notifyTest)),
		rpc.MethodNotifyVAPIDKey:      read(lookup(plain(s.notifyVAPIDKey))),
		rpc.MethodNotifySubscribe:     read(withClient(s.notifySubscribe)),
		rpc.MethodNotifySubscriptions: read(lookup(withClient(s.notifySubscriptions))),
		rpc.MethodNotifyUpdate:        read(withClient(s.notifyUpdate)),
		rpc.MethodNotifyUnsubscribe:   read(withClient(s.notifyUnsubscribe)),
	}
}

var errNotifyOff = &rpc.Error{Code: rpc.CodeInternalError, Message: "notifications are not set up on this server"}

func (s *Server) notifyTest(ctx context.Context, _ rpc.EmptyParams) (rpc.NotifyTestResult, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifyTestResult{}, errNotifyOff
	}
	return s.cfg.Notify.Test(ctx), nil
}

func (s *Server) notifyVAPIDKey(_ context.Context, _ rpc.EmptyParams) (rpc.NotifyVAPIDKeyResult, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifyVAPIDKeyResult{}, errNotifyOff
	}
	return s.cfg.Notify.VAPIDKey(), nil
}

func (s *Server) notifySubscribe(_ context.Context, c *client, p rpc.NotifySubscribeParams) (rpc.NotifySubscription, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifySubscription{}, errNotifyOff
	}
	return s.cfg.Notify.Subscribe(p, c.conn.Principal().DeviceID)
}

func (s *Server) notifySubscriptions(_ context.Context, c *client, _ rpc.EmptyParams) (rpc.NotifySubscriptionsResult, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifySubscriptionsResult{}, errNotifyOff
	}
	return s.cfg.Notify.Subscriptions(caller(c)), nil
}

func (s *Server) notifyUpdate(_ context.Context, c *client, p rpc.NotifyUpdateParams) (rpc.NotifySubscription, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifySubscription{}, errNotifyOff
	}
	return s.cfg.Notify.Update(p, caller(c))
}

func (s *Server) notifyUnsubscribe(_ context.Context, c *client, p rpc.NotifyUnsubscribeParams) (rpc.SuccessResult, error) {
	if s.cfg.Notify == nil {
		return rpc.SuccessResult{}, errNotifyOff
	}
	return s.cfg.Notify.Unsubscribe(p, caller(c))
}

// caller is who c is to the notifications' subscriptions: a device that
// may act manages them all, any other only its own.
func caller(c *client) notify.Caller {
	p := c.conn.Principal()
	return notify.Caller{DeviceID: p.DeviceID, Control: p.CanAct()}
}
