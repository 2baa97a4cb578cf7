"""Building blocks that several views share: each draws one part of a page and calls the analyzer."""
