# kind: wrong
# about: answers with a letter that is not one of the options
# expect answer_batching_bug: wrong /not one of|options are|only options/

answer_batching_bug = "E"
