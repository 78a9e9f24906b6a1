BvaluesJðâž®n`ì
š“^×½<