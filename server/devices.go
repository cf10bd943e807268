package server

import (
	"context"
	"errors"

	"github.com/cdevd/cdevd/auth"
	"github.com/cdevd/cdevd/rpc"
)

// deviceMethods manage paired devices. Every one acts: a watch device may
// not even list the others (their names and addresses are the owner's).
func (s *Server) deviceMethods() family {
	return family{
		rpc.MethodDeviceList:   act(plain(s.deviceList)),
		rpc.MethodDeviceRevoke: act(plain(s.deviceRevoke)),
		rpc.MethodDeviceRename: act(plain(s.deviceRename)),
	}
}

// errNoDevices: a server built without the auth service (unit tests).
var errNoDevices = errors.New("this server keeps no devices")

func wireDevice(d auth.Device) rpc.Device {
	out := rpc.Device{ID: d.ID, Name: d.Name, Scope: string(d.Scope), CreatedAt: rpc.FormatTime(d.Created),
		LastSeenAddress: d.LastSeenAddr, Client: d.Client}
	if !d.LastSeen.IsZero() {
		out.LastSeenAt = rpc.FormatTime(d.LastSeen)
	}
	return out
}

func (s *Server) deviceList(context.Context, rpc.EmptyParams) (rpc.DeviceListResult, error) {
	if s.cfg.Auth == nil {
		return rpc.DeviceListResult{}, errNoDevices
	}
	ds := s.cfg.Auth.Store.List()
	out := rpc.DeviceListResult{Devices: make([]rpc.Device, 0, len(ds))}
	for _, d := range ds {
		out.Devices = append(out.Devices, wireDevice(d))
	}
	return out, nil
}

func deviceError(id string, err error) error {
	if errors.Is(err, auth.ErrUnknownDevice) {
		return rpc.InvalidParams("device_id", "no such device: "+id)
	}
	return err
}

func (s *Server) deviceRevoke(_ context.Context, p rpc.DeviceIDParams) (rpc.SuccessResult, error) {
	if err := required("device_id", p.DeviceID); err != nil {
		return rpc.SuccessResult{}, err
	}
	if s.cfg.Auth == nil {
		return rpc.SuccessResult{}, errNoDevices
	}
	if err := s.cfg.Auth.Revoke(p.DeviceID); err != nil {
		return rpc.SuccessResult{}, deviceError(p.DeviceID, err)
	}
	return rpc.SuccessResult{Success: true}, nil
}

func (s *Server) deviceRename(_ context.Context, p rpc.DeviceRenameParams) (rpc.Device, error) {
	if err := required("device_id", p.DeviceID); err != nil {
		return rpc.Device{}, err
	}
	if err := required("name", p.Name); err != nil {
		return rpc.Device{}, err
	}
	if err := auth.CheckName(p.Name); err != nil {
		return rpc.Device{}, rpc.InvalidParams("name", err.Error())
	}
	if s.cfg.Auth == nil {
		return rpc.Device{}, errNoDevices
	}
	d, err := s.cfg.Auth.Rename(p.DeviceID, p.Name)
	if err != nil {
		return rpc.Device{}, deviceError(p.DeviceID, err)
	}
	return wireDevice(d), nil
}
