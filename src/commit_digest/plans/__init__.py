"""What the paid tasks over the site's days and weeks are asked to write, planned from the site's read
model (``site.model``): a week's narrative and a day's brief cover exactly the commits their pages
list. Here ``analysis`` (how to ask) meets ``site`` (what the reader sees); neither imports the other."""
