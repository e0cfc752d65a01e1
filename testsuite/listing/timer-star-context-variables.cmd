# timer points have no context variables: -L prints the points alone
-L 'timer.*'
