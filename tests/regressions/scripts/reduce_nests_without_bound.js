db.aggregate([{$documents: [{}]}, {$project: {a: {$reduce: {input: {$range: [0, 100000]}, initialValue: {}, in: {a: '$$value'}}}}}])
