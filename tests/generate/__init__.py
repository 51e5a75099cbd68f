"""Generated workspaces, shared by the tests and the benchmarks (benchmarks import them from here;
tests never import benchmarks). One writer and one mtime rule (files.py), one spelling of cards,
queue snapshots and knowledge documents (documents.py), one answers file convention (files.py):

- large.py, large_notes.py: workspaces of any size in the sample's five note styles, from a seed;
- ten_days.py: ten consecutive days of two authors' notes and two knowledge documents;
- replay.py: one topic's days replayed one by one (hedges, a settling note, a promise kept);
- shared_papers.py: two-topic workspaces of shared, handed-over and excluded papers, with answers;
- subjects.py: one evening whose notes raise pending items, in any heading style, with answers.

The same arguments give the same bytes: changing a generator's output changes benchmark figures
and the tests' answers, so it is a change of its own.
"""
