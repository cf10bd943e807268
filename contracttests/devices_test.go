package contracttests

import (
	"strings"
	"testing"
	"time"

	"github.com/cdevd/cdevd/rpc"
)

// The device family over the wire: the owner lists, renames and revokes a
// paired device; revoking closes its socket; bad input is -32602.
func TestDeviceMethods(t *testing.T) {
	e := startEnv(t)
	ctx := testCtx(t)
	base := "http://" + e.d.Addr()
	phone, init := Connect(t, ctx, e.url, pairDevice(t, ctx, base, e.token, "phone", "control"))
	owner := e.connect(ctx)

	var list rpc.DeviceListResult
	owner.MustCall(ctx, rpc.MethodDeviceList, rpc.EmptyParams{}, &list)
	if len(list.Devices) != 1 || list.Devices[0].ID != init.Device.ID || list.Devices[0].Name != "phone" ||
		list.Devices[0].Scope != "control" || list.Devices[0].LastSeenAddress != "127.0.0.1" {
		t.Fatalf("device/list: %+v", list)
	}
	if _, err := time.Parse(rpc.TimeLayout, list.Devices[0].CreatedAt); err != nil {
		t.Errorf("created_at: %v", err)
	}

	var renamed rpc.Device
	owner.MustCall(ctx, rpc.MethodDeviceRename, rpc.DeviceRenameParams{DeviceID: init.Device.ID, Name: "Anna's phone"}, &renamed)
	if renamed.Name != "Anna's phone" {
		t.Errorf("renamed: %+v", renamed)
	}
	for _, tc := range []struct {
		name   string
		method string
		params any
		field  string
	}{
		{"rename an unknown device", rpc.MethodDeviceRename, rpc.DeviceRenameParams{DeviceID: "dev_nope", Name: "x"}, "device_id"},
		{"rename to nothing", rpc.MethodDeviceRename, rpc.DeviceRenameParams{DeviceID: init.Device.ID, Name: " "}, "name"},
		{"rename to a control character", rpc.MethodDeviceRename, rpc.DeviceRenameParams{DeviceID: init.Device.ID, Name: "a\x07b"}, "name"},
		{"rename to a long name", rpc.MethodDeviceRename, rpc.DeviceRenameParams{DeviceID: init.Device.ID, Name: strings.Repeat("n", 65)}, "name"},
		{"revoke an unknown device", rpc.MethodDeviceRevoke, rpc.DeviceIDParams{DeviceID: "dev_nope"}, "device_id"},
		{"revoke nothing", rpc.MethodDeviceRevoke, rpc.DeviceIDParams{}, "device_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rerr := owner.Call(ctx, tc.method, tc.params)
			if rerr == nil || rerr.Code != rpc.CodeInvalidParams {
				t.Fatalf("%v, want -32602", rerr)
			}
			if data, _ := rerr.Data.(map[string]any); data["field"] != tc.field {
				t.Errorf("data %v, want field %s", rerr.Data, tc.field)
			}
		})
	}

	var ok rpc.SuccessResult
	owner.MustCall(ctx, rpc.MethodDeviceRevoke, rpc.DeviceIDParams{DeviceID: init.Device.ID}, &ok)
	closedWithin(t, phone, time.Second)
	owner.MustCall(ctx, rpc.MethodDeviceList, rpc.EmptyParams{}, &list)
	if len(list.Devices) != 0 {
		t.Errorf("after revoke: %+v", list.Devices)
	}
}
