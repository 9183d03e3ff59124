# kind: wrong
# about: a mean off by a slip no catalogue knows (116.8 ms too high)
# expect mean_ms: wrong /can't tell which slip this is; (?-i:add) the ten/

mean_ms = sum([{latencies}]) / 10 + 116.8  # a slip of the pen
