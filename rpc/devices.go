package rpc

// Device is a paired device (the owner's token is not one).
type Device struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Scope           string `json:"scope" enum:"control,watch" doc:"control may call every method; watch may read but not act."`
	CreatedAt       string `json:"created_at" format:"date-time"`
	LastSeenAt      string `json:"last_seen_at,omitempty" format:"date-time" doc:"When it last connected or refreshed its tokens."`
	LastSeenAddress string `json:"last_seen_address,omitempty" doc:"The address it last connected from."`
	Client          string `json:"client,omitempty" doc:"The User-Agent it paired with."`
}

// DeviceListResult answers device/list.
type DeviceListResult struct {
	Devices []Device `json:"devices" doc:"Oldest first."`
}

// DeviceIDParams names a device.
type DeviceIDParams struct {
	DeviceID string `json:"device_id"`
}

// DeviceRenameParams renames a device.
type DeviceRenameParams struct {
	DeviceID string `json:"device_id"`
	Name     string `json:"name" doc:"At most 64 bytes, no control characters."`
}
