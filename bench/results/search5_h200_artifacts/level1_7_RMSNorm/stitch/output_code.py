# nothing to stitch
