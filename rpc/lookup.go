package rpc

// methodNames is the set of Methods' names, built once.
var methodNames = func() map[string]bool {
	m := make(map[string]bool, len(Methods))
	for _, spec := range Methods {
		m[spec.Name] = true
	}
	return m
}()

// IsMethod reports whether name is a method clients may call (one of
// Methods).
func IsMethod(name string) bool { return methodNames[name] }
