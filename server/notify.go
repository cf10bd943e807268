package server

import (
	"context"

	"github.com/cdevd/cdevd/rpc"
)

// Notifications is what the notify/* methods need; notify.Service
// implements it. Without one (a server built for a test), they answer an
// internal error saying notifications are off.
type Notifications interface {
	Test(ctx context.Context) rpc.NotifyTestResult
	VAPIDKey() rpc.NotifyVAPIDKeyResult
	Subscribe(p rpc.NotifySubscribeParams, owner string) (rpc.NotifySubscription, error)
	Subscriptions() rpc.NotifySubscriptionsResult
	Update(p rpc.NotifyUpdateParams) (rpc.NotifySubscription, error)
	Unsubscribe(p rpc.NotifyUnsubscribeParams) (rpc.SuccessResult, error)
}

func (s *Server) notifyMethods() family {
	return family{
		rpc.MethodNotifyTest:          act(plain(s.notifyTest)),
		rpc.MethodNotifyVAPIDKey:      read(lookup(plain(s.notifyVAPIDKey))),
		rpc.MethodNotifySubscribe:     read(withClient(s.notifySubscribe)),
		rpc.MethodNotifySubscriptions: read(lookup(plain(s.notifySubscriptions))),
		rpc.MethodNotifyUpdate:        read(plain(s.notifyUpdate)),
		rpc.MethodNotifyUnsubscribe:   read(plain(s.notifyUnsubscribe)),
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

func (s *Server) notifySubscriptions(_ context.Context, _ rpc.EmptyParams) (rpc.NotifySubscriptionsResult, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifySubscriptionsResult{}, errNotifyOff
	}
	return s.cfg.Notify.Subscriptions(), nil
}

func (s *Server) notifyUpdate(_ context.Context, p rpc.NotifyUpdateParams) (rpc.NotifySubscription, error) {
	if s.cfg.Notify == nil {
		return rpc.NotifySubscription{}, errNotifyOff
	}
	return s.cfg.Notify.Update(p)
}

func (s *Server) notifyUnsubscribe(_ context.Context, p rpc.NotifyUnsubscribeParams) (rpc.SuccessResult, error) {
	if s.cfg.Notify == nil {
		return rpc.SuccessResult{}, errNotifyOff
	}
	return s.cfg.Notify.Unsubscribe(p)
}
