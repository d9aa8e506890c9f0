"""The `course` command's own machinery, apart from the library lessons and labs import.

    cli (`course`: start, check, progress, work, doctor, ...), doctor, terminal (JupyterLab's
    terminals find `course`), kernel (the course's kernel), saving and contents (what the server
    writes and serves), modes (student or instructor JupyterLab), work (learners' own lab copies),
    torch_wheel (which torch build course.sh installs), progress_transfer (the website's progress in
    and out), nbtools (notebook chores), hub/ (a class on JupyterHub), site/ (the static website)

The library (everything in coursekit/ outside app/) never imports this package: a lesson, a lab or
a check runs the same whether or not the course was started with `course start`.
"""
