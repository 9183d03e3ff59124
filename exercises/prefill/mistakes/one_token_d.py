# kind: wrong
# about: believes the prompt's keys and values are already cached
# expect answer_one_token: wrong /not in the cache yet|computes and writes/

answer_one_token = "D"
