
BvaluesJ%ü-i