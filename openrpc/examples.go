package openrpc

import "github.com/cdevd/cdevd/rpc"

type examplePairing struct {
	Name   string        `json:"name"`
	Params []exampleItem `json:"params"`
	Result *exampleItem  `json:"result,omitempty"`
}

type exampleItem struct {
	Name  string `json:"name"`
	Value any    `json:"value"`
}

func examplesOf(spec rpc.MethodSpec) ([]examplePairing, error) { return nil, nil }
