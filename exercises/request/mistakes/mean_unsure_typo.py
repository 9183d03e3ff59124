# kind: wrong
# about: a mean typed with a slip no catalogue knows (digits swapped)
# expect mean_ms: wrong /can't tell which slip this is; (?-i:add) the ten/

mean_ms = 517.3
