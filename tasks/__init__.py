"""Plain, typed task functions that predigest's flows compose."""
